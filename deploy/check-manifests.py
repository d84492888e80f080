#!/usr/bin/env python3
"""Check the Kubernetes manifests in deploy/kubernetes/ without a cluster.

Every document is checked against the shape of the Kubernetes API objects it
uses (apiVersion/kind pairs, required fields, field types, no unknown fields,
names and enumerations as the API server validates them), then the manifests
are checked against each other: the DaemonSet's volume mounts name volumes
that exist, every volume is used, hostPath types are valid, the ConfigMap keys
it mounts exist and every key is mounted, its ServiceAccount and Namespace
exist, a nodeSelector is set and the RuntimeClass schedules on the same label,
the kustomization lists every manifest, the ConfigMap's 50-default.json is
cni-like-config/default.json, the image tag is the hook's version, the
environment is what the entrypoint reads, and the pod has hostPID and
privileged as the entrypoint needs.

  deploy/check-manifests.py [--dir DIR] [--hook BIN] [--update-configmap] [--selftest]

--hook BIN also runs `BIN validate` on the ConfigMap's files. --selftest
breaks the manifests in memory, one way at a time, and checks that each
break is reported. Prints one `ok`/`not ok` line per check and ends with
"check-manifests: N passed, N failed"; exits 1 on any failure.
"""
import argparse
import copy
import json
import os
import re
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    sys.exit("check-manifests.py: python3-yaml missing (apt-get install python3-yaml)")

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
DNS_SUBDOMAIN = re.compile(r"^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")
CONFIGMAP_KEY = re.compile(r"^[-._a-zA-Z0-9]{1,253}$")
LABEL_NAME = re.compile(r"^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$")
LABEL_VALUE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?$")
ENV_NAME = re.compile(r"^[-._a-zA-Z][-._a-zA-Z0-9]*$")
QUANTITY = re.compile(r"^[0-9]+(\.[0-9]+)?(m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$")
HOSTPATH_TYPES = {"", "DirectoryOrCreate", "Directory", "FileOrCreate", "File", "Socket",
                  "CharDevice", "BlockDevice"}


# --- a small schema language: what the API accepts for the fields we use --
# A schema is a type name ("str", "bool", "int", "quantity", ...), a list of
# one schema (a list of such items), {"*": schema} (a map with any keys), or
# a dict of field -> (schema, required).

def req(s):
    return (s, True)


def opt(s):
    return (s, False)


LABELS = {"*": "label-value"}
OBJECT_META = {"name": req("dns-subdomain"), "namespace": opt("dns-label"),
               "labels": opt(LABELS), "annotations": opt({"*": "str"})}
KEY_SELECTOR = {"key": req("str"), "operator": req(("enum", {"In", "NotIn", "Exists", "DoesNotExist"})),
                "values": opt(["str"])}
LABEL_SELECTOR = {"matchLabels": opt(LABELS), "matchExpressions": opt([KEY_SELECTOR])}
ENV_VAR = {"name": req("env-name"), "value": opt("str"),
           "valueFrom": opt({"fieldRef": opt({"fieldPath": req("str"), "apiVersion": opt("str")})})}
EXEC_ACTION = {"command": req(["str"])}
PROBE = {"exec": opt(EXEC_ACTION), "periodSeconds": opt("int"), "initialDelaySeconds": opt("int"),
         "timeoutSeconds": opt("int"), "failureThreshold": opt("int"), "successThreshold": opt("int")}
RESOURCES = {"requests": opt({"*": "quantity"}), "limits": opt({"*": "quantity"})}
VOLUME_MOUNT = {"name": req("dns-label"), "mountPath": req("abs-path"), "readOnly": opt("bool"),
                "subPath": opt("str"), "mountPropagation": opt(("enum", {"None", "HostToContainer", "Bidirectional"}))}
CONTAINER = {
    "name": req("dns-label"), "image": req("str"),
    "imagePullPolicy": opt(("enum", {"Always", "IfNotPresent", "Never"})),
    "command": opt(["str"]), "args": opt(["str"]), "env": opt([ENV_VAR]),
    "securityContext": opt({"privileged": opt("bool"), "runAsUser": opt("int")}),
    "readinessProbe": opt(PROBE), "livenessProbe": opt(PROBE),
    "lifecycle": opt({"preStop": opt({"exec": req(EXEC_ACTION)})}),
    "resources": opt(RESOURCES), "volumeMounts": opt([VOLUME_MOUNT]),
}
KEY_TO_PATH = {"key": req("configmap-key"), "path": req("rel-path"), "mode": opt("int")}
VOLUME = {
    "name": req("dns-label"),
    "hostPath": opt({"path": req("abs-path"), "type": opt(("enum", HOSTPATH_TYPES))}),
    "configMap": opt({"name": req("dns-subdomain"), "items": opt([KEY_TO_PATH]),
                      "defaultMode": opt("int"), "optional": opt("bool")}),
    "emptyDir": opt({"medium": opt(("enum", {"", "Memory"})), "sizeLimit": opt("quantity")}),
}
VOLUME_SOURCES = ("hostPath", "configMap", "emptyDir")
TOLERATION = {"key": opt("str"), "operator": opt(("enum", {"Exists", "Equal"})), "value": opt("str"),
              "effect": opt(("enum", {"NoSchedule", "PreferNoSchedule", "NoExecute"})),
              "tolerationSeconds": opt("int")}
POD_SPEC = {
    "containers": req([CONTAINER]), "volumes": opt([VOLUME]), "nodeSelector": opt(LABELS),
    "serviceAccountName": opt("dns-subdomain"), "automountServiceAccountToken": opt("bool"),
    "hostPID": opt("bool"), "hostNetwork": opt("bool"), "priorityClassName": opt("str"),
    "tolerations": opt([TOLERATION]), "terminationGracePeriodSeconds": opt("int"),
}
DAEMONSET_SPEC = {
    "selector": req(LABEL_SELECTOR),
    "template": req({"metadata": req({"labels": req(LABELS), "annotations": opt({"*": "str"})}),
                     "spec": req(POD_SPEC)}),
    "updateStrategy": opt({"type": opt(("enum", {"RollingUpdate", "OnDelete"})),
                           "rollingUpdate": opt({"maxUnavailable": opt("int-or-percent"),
                                                 "maxSurge": opt("int-or-percent")})}),
    "minReadySeconds": opt("int"), "revisionHistoryLimit": opt("int"),
}

# (apiVersion, kind) -> (schema of the top-level fields, namespaced)
KINDS = {
    ("v1", "Namespace"): ({"metadata": req(OBJECT_META), "spec": opt({"finalizers": opt(["str"])})}, False),
    ("v1", "ServiceAccount"): ({"metadata": req(OBJECT_META),
                                "automountServiceAccountToken": opt("bool")}, True),
    ("v1", "ConfigMap"): ({"metadata": req(OBJECT_META), "data": opt({"*": "str"}),
                           "immutable": opt("bool")}, True),
    ("apps/v1", "DaemonSet"): ({"metadata": req(OBJECT_META), "spec": req(DAEMONSET_SPEC)}, True),
    ("node.k8s.io/v1", "RuntimeClass"): ({"metadata": req(OBJECT_META), "handler": req("dns-label"),
                                          "scheduling": opt({"nodeSelector": opt(LABELS),
                                                             "tolerations": opt([TOLERATION])}),
                                          "overhead": opt({"podFixed": opt({"*": "quantity"})})}, False),
}
KUSTOMIZATION = ("kustomize.config.k8s.io/v1beta1", "Kustomization")


def label_key_ok(k):
    prefix, _, name = k.rpartition("/")
    return bool(LABEL_NAME.match(name)) and (not prefix or bool(DNS_SUBDOMAIN.match(prefix)))


def check_scalar(t, v, where, errs):
    if isinstance(t, tuple):
        if v not in t[1]:
            errs.append(f"{where}: `{v}` is not one of {sorted(t[1])}")
        return
    ok = {
        "str": isinstance(v, str),
        "bool": isinstance(v, bool),
        "int": isinstance(v, int) and not isinstance(v, bool),
        "int-or-percent": (isinstance(v, int) and not isinstance(v, bool)) or
                          (isinstance(v, str) and re.match(r"^[0-9]+%$", v) is not None),
        "quantity": isinstance(v, str) and QUANTITY.match(v) is not None or
                    (isinstance(v, int) and not isinstance(v, bool)),
        "dns-label": isinstance(v, str) and DNS_LABEL.match(v) is not None,
        "dns-subdomain": isinstance(v, str) and DNS_SUBDOMAIN.match(v) is not None,
        "configmap-key": isinstance(v, str) and CONFIGMAP_KEY.match(v) is not None,
        "env-name": isinstance(v, str) and ENV_NAME.match(v) is not None,
        "label-value": isinstance(v, str) and LABEL_VALUE.match(v) is not None,
        "abs-path": isinstance(v, str) and v.startswith("/") and "/../" not in v + "/",
        "rel-path": isinstance(v, str) and v != "" and not v.startswith("/") and ".." not in v.split("/"),
    }[t]
    if not ok:
        errs.append(f"{where}: `{v!r}` is not a valid {t}")


def check_shape(schema, v, where, errs):
    """Append to errs every way v differs from schema."""
    if isinstance(schema, (str, tuple)):
        check_scalar(schema, v, where, errs)
    elif isinstance(schema, list):
        if not isinstance(v, list):
            errs.append(f"{where}: must be a list, got {type(v).__name__}")
            return
        for i, item in enumerate(v):
            check_shape(schema[0], item, f"{where}[{i}]", errs)
    elif "*" in schema:
        if not isinstance(v, dict):
            errs.append(f"{where}: must be a map, got {type(v).__name__}")
            return
        for k, item in v.items():
            if not isinstance(k, str):
                errs.append(f"{where}: key {k!r} is not a string")
            elif schema is LABELS and not label_key_ok(k):
                errs.append(f"{where}: `{k}` is not a valid label key")
            check_shape(schema["*"], item, f"{where}.{k}", errs)
    else:
        if not isinstance(v, dict):
            errs.append(f"{where}: must be an object, got {type(v).__name__}")
            return
        for k in v:
            if k not in schema:
                errs.append(f"{where}: unknown field `{k}`")
        for k, (sub, required) in schema.items():
            if k in v:
                check_shape(sub, v[k], f"{where}.{k}", errs)
            elif required:
                errs.append(f"{where}: required field `{k}` missing")


class Report:
    def __init__(self, quiet=False):
        self.n = self.failed = 0
        self.quiet = quiet
        self.errors = []

    def check(self, what, errs):
        self.n += 1
        if errs:
            self.failed += 1
            self.errors += errs
        if not self.quiet:
            print(f"{'not ok' if errs else 'ok'} {self.n} - {what}")
            for e in errs:
                print(f"#   {e}")
        return not errs


def load(dirpath):
    """{file name: [documents]} for every *.yaml in dirpath."""
    docs = {}
    for name in sorted(os.listdir(dirpath)):
        if name.endswith((".yaml", ".yml")):
            with open(os.path.join(dirpath, name)) as f:
                docs[name] = [d for d in yaml.safe_load_all(f) if d is not None]
    return docs


def hook_version():
    with open(os.path.join(TOP, "oci-hook/src/util.h")) as f:
        m = re.search(r'^#define IOWEIGHT_VERSION "([^"]+)"', f.read(), re.M)
    return m.group(1) if m else None


def check_all(docs, rep, entrypoint_text, default_json, hook=None):
    objs = {}       # (kind, namespace, name) -> object
    kustomizations = []
    for fname, ds in docs.items():
        for i, d in enumerate(ds):
            where = f"{fname}#{i}"
            errs = []
            if not isinstance(d, dict):
                rep.check(f"{where} is an object", [f"{where}: not a mapping"])
                continue
            key = (d.get("apiVersion"), d.get("kind"))
            if key == KUSTOMIZATION:
                kustomizations.append((fname, d))
                continue
            if key not in KINDS:
                rep.check(f"{where}: apiVersion/kind", [f"{where}: unknown apiVersion/kind pair {key}"])
                continue
            schema, namespaced = KINDS[key]
            check_shape(schema, {k: v for k, v in d.items() if k not in ("apiVersion", "kind")},
                        f"{where} {key[1]}", errs)
            meta = d.get("metadata") or {}
            if namespaced and "namespace" not in meta:
                errs.append(f"{where}: namespaced {key[1]} without metadata.namespace")
            if not namespaced and "namespace" in meta:
                errs.append(f"{where}: cluster-scoped {key[1]} must not set metadata.namespace")
            ident = (key[1], meta.get("namespace"), meta.get("name"))
            if ident in objs:
                errs.append(f"{where}: {key[1]} {meta.get('name')} defined twice")
            objs[ident] = d
            rep.check(f"{where}: {key[0]} {key[1]} {meta.get('name')} has the API's shape", errs)

    namespaces = {n for (k, _, n) in objs if k == "Namespace"}
    for (kind, ns, name) in objs:
        if ns is not None:
            rep.check(f"{kind} {name}: namespace {ns} is defined",
                      [] if ns in namespaces else [f"{kind} {name}: namespace {ns} not among the manifests"])

    dsets = [(ns, n, o) for (k, ns, n), o in objs.items() if k == "DaemonSet"]
    rep.check("one DaemonSet", [] if len(dsets) == 1 else [f"{len(dsets)} DaemonSets"])
    for ns, name, ds in dsets:
        check_daemonset(ns, name, ds, objs, rep, entrypoint_text)

    for (kind, ns, name), o in objs.items():
        if kind == "RuntimeClass":
            errs = []
            sel = ((o.get("scheduling") or {}).get("nodeSelector")) or {}
            for _, dname, ds in dsets:
                dsel = ds["spec"]["template"]["spec"].get("nodeSelector") or {}
                for k, v in sel.items():
                    if dsel.get(k) != v:
                        errs.append(f"RuntimeClass {name} schedules on {k}={v}, which the DaemonSet "
                                    f"{dname}'s nodeSelector does not require: pods could land on nodes without the hook")
            if not sel:
                errs.append(f"RuntimeClass {name}: no scheduling.nodeSelector")
            rep.check(f"RuntimeClass {name} schedules only where the installer runs", errs)

    for (kind, ns, name), o in objs.items():
        if kind == "ConfigMap" and "50-default.json" in (o.get("data") or {}):
            errs = []
            if o["data"]["50-default.json"] != default_json:
                errs.append(f"ConfigMap {name}: 50-default.json differs from cni-like-config/default.json "
                            "(deploy/check-manifests.py --update-configmap rewrites it)")
            rep.check(f"ConfigMap {name}: 50-default.json is cni-like-config/default.json", errs)
        if kind == "ConfigMap" and hook:
            with tempfile.TemporaryDirectory() as t:
                for k, v in (o.get("data") or {}).items():
                    with open(os.path.join(t, k), "w") as f:
                        f.write(v)
                r = subprocess.run([hook, "validate", t], capture_output=True, text=True)
                rep.check(f"ConfigMap {name}: `ioweight-hook validate` accepts its files",
                          [] if r.returncode == 0 else [l for l in (r.stdout + r.stderr).splitlines()])

    files = set(docs)
    for fname, k in kustomizations:
        listed = k.get("resources") or []
        errs = [f"{fname}: lists {r}, which does not exist" for r in listed if r not in files]
        errs += [f"{fname}: does not list {f}" for f in sorted(files - set(listed) - {fname})]
        rep.check(f"{fname} lists every manifest", errs)
    rep.check("a kustomization exists", [] if kustomizations else ["no kustomization.yaml"])


def check_daemonset(ns, name, ds, objs, rep, entrypoint_text):
    spec = ds.get("spec") or {}
    tmpl = spec.get("template") or {}
    pod = tmpl.get("spec") or {}
    what = f"DaemonSet {name}"

    errs = []
    sel = (spec.get("selector") or {}).get("matchLabels") or {}
    labels = (tmpl.get("metadata") or {}).get("labels") or {}
    if not sel:
        errs.append(f"{what}: spec.selector.matchLabels is empty")
    errs += [f"{what}: selector {k}={v} does not match the pod template's labels"
             for k, v in sel.items() if labels.get(k) != v]
    rep.check(f"{what}: selector matches the pod template", errs)

    ns_sel = pod.get("nodeSelector") or {}
    rep.check(f"{what}: nodeSelector opts nodes in by label",
              [] if any(k != "kubernetes.io/os" for k in ns_sel) else
              [f"{what}: no nodeSelector label beyond kubernetes.io/os: it would run on every node at once"])

    containers = pod.get("containers") or []
    volumes = pod.get("volumes") or []
    vnames = [v.get("name") for v in volumes]
    errs = [f"{what}: volume {n} defined twice" for n in set(vnames) if vnames.count(n) > 1]
    for v in volumes:
        srcs = [s for s in VOLUME_SOURCES if s in v]
        if len(srcs) != 1:
            errs.append(f"{what}: volume {v.get('name')} has {len(srcs)} sources {srcs}, needs exactly one")
    cnames = [c.get("name") for c in containers]
    errs += [f"{what}: container name {n} used twice" for n in set(cnames) if cnames.count(n) > 1]
    used = set()
    for c in containers:
        paths = []
        for m in c.get("volumeMounts") or []:
            used.add(m.get("name"))
            paths.append(m.get("mountPath"))
            if m.get("name") not in vnames:
                errs.append(f"{what}: container {c.get('name')} mounts volume {m.get('name')}, which is not defined")
        errs += [f"{what}: container {c.get('name')} mounts twice at {p}" for p in set(paths) if paths.count(p) > 1]
    errs += [f"{what}: volume {n} is mounted by no container" for n in vnames if n not in used]
    rep.check(f"{what}: containers, volumes and volume mounts agree", errs)

    errs = []
    for v in volumes:
        hp = v.get("hostPath")
        if hp is not None:
            if "type" not in hp:
                errs.append(f"{what}: hostPath volume {v.get('name')} has no type (any file type would be accepted)")
            elif hp["type"] not in HOSTPATH_TYPES:
                errs.append(f"{what}: hostPath volume {v.get('name')}: type {hp['type']} is not one of {sorted(HOSTPATH_TYPES)}")
    rep.check(f"{what}: hostPath volumes have valid types", errs)

    errs = []
    for v in volumes:
        cm = v.get("configMap")
        if cm is None:
            continue
        o = objs.get(("ConfigMap", ns, cm.get("name")))
        if o is None:
            errs.append(f"{what}: volume {v.get('name')} uses ConfigMap {cm.get('name')}, not among the manifests in {ns}")
            continue
        data = o.get("data") or {}
        items = cm.get("items")
        if items is not None:
            keys = [i.get("key") for i in items]
            errs += [f"{what}: volume {v.get('name')} mounts key {k}, which ConfigMap {cm.get('name')} does not have"
                     for k in keys if k not in data]
            errs += [f"{what}: ConfigMap {cm.get('name')} key {k} is not listed in volume {v.get('name')}'s items: "
                     "it would never reach the nodes" for k in data if k not in keys]
    rep.check(f"{what}: the ConfigMap keys it mounts exist, and every key is mounted", errs)

    errs = []
    sa = pod.get("serviceAccountName")
    if sa and ("ServiceAccount", ns, sa) not in objs:
        errs.append(f"{what}: ServiceAccount {sa} not among the manifests in {ns}")
    rep.check(f"{what}: its ServiceAccount exists", errs)

    errs = []
    version = hook_version()
    for c in containers:
        img = c.get("image", "")
        if version and not img.endswith(":" + version):
            errs.append(f"{what}: container {c.get('name')} image {img} is not tagged with the hook's version {version}")
        for e in c.get("env") or []:
            n = e.get("name", "")
            if entrypoint_text is not None and not re.search(r"\$\{?" + re.escape(n) + r"\b", entrypoint_text):
                errs.append(f"{what}: env {n} is not read by image/entrypoint.sh")
    rep.check(f"{what}: image tag and environment match the installer image", errs)

    errs = []
    if entrypoint_text is not None and "nsenter -t 1" in entrypoint_text and pod.get("hostPID") is not True:
        errs.append(f"{what}: image/entrypoint.sh enters the host through PID 1 (nsenter -t 1), which needs hostPID: true")
    for c in containers:
        if not (c.get("securityContext") or {}).get("privileged"):
            errs.append(f"{what}: container {c.get('name')} is not privileged: it cannot setns() into the host "
                        "or write the host's files")
    rep.check(f"{what}: hostPID and privileged, as the installer needs", errs)


def update_configmap(path, default_json):
    with open(path) as f:
        text = f.read()
    head, sep, _ = text.partition("  50-default.json: |\n")
    if not sep:
        sys.exit(f"check-manifests.py: {path} has no `  50-default.json: |` block to rewrite")
    body = "".join(("    " + l) if l.strip() else "\n" for l in default_json.splitlines(True))
    with open(path, "w") as f:
        f.write(head + sep + body)
    print(f"rewrote {path}")


def selftest(docs, entrypoint_text, default_json):
    """Break the manifests one way at a time; each break must be reported."""
    def ds_of(d):
        return next(x for ds in d.values() for x in ds if isinstance(x, dict) and x.get("kind") == "DaemonSet")

    def pod(d):
        return ds_of(d)["spec"]["template"]["spec"]

    def cm_of(d):
        return next(x for ds in d.values() for x in ds if isinstance(x, dict) and x.get("kind") == "ConfigMap")

    def rc_of(d):
        return next(x for ds in d.values() for x in ds if isinstance(x, dict) and x.get("kind") == "RuntimeClass")

    def hostpath(d):
        return next(v for v in pod(d)["volumes"] if "hostPath" in v)["hostPath"]

    def rename_key(d):
        data = cm_of(d)["data"]
        data["50-renamed.json"] = data.pop("50-default.json")

    # what is broken: (the error that must be reported, how to break it)
    breaks = {
        "wrong apiVersion": ("unknown apiVersion/kind pair",
                             lambda d: ds_of(d).__setitem__("apiVersion", "extensions/v1beta1")),
        "unknown field": ("unknown field `privileged`",
                          lambda d: pod(d)["containers"][0].__setitem__("privileged", True)),
        "missing container image": ("required field `image` missing",
                                    lambda d: pod(d)["containers"][0].pop("image")),
        "bad container name": ("is not a valid dns-label",
                               lambda d: pod(d)["containers"][0].__setitem__("name", "Installer_1")),
        "mount of an undefined volume": ("mounts volume nowhere, which is not defined",
                                         lambda d: pod(d)["containers"][0]["volumeMounts"].append(
                                             {"name": "nowhere", "mountPath": "/nowhere"})),
        "unused volume": ("volume spare is mounted by no container",
                          lambda d: pod(d)["volumes"].append({"name": "spare", "emptyDir": {}})),
        "bad hostPath type": ("`Dir` is not one of", lambda d: hostpath(d).__setitem__("type", "Dir")),
        "hostPath without type": ("has no type", lambda d: hostpath(d).pop("type")),
        "mounted ConfigMap key missing": ("mounts key 50-default.json, which ConfigMap", rename_key),
        "ConfigMap key not mounted": ("key 10-extra.json is not listed",
                                      lambda d: cm_of(d)["data"].__setitem__("10-extra.json", "{}")),
        "no nodeSelector": ("no nodeSelector label", lambda d: pod(d).pop("nodeSelector")),
        "RuntimeClass on another label": ("schedules on ioweight.dev/other=true",
                                          lambda d: rc_of(d)["scheduling"].__setitem__(
                                              "nodeSelector", {"ioweight.dev/other": "true"})),
        "ServiceAccount missing": ("ServiceAccount nobody not among",
                                   lambda d: pod(d).__setitem__("serviceAccountName", "nobody")),
        "namespace missing": ("namespace elsewhere not among",
                              lambda d: cm_of(d)["metadata"].__setitem__("namespace", "elsewhere")),
        "selector does not match": ("selector x=y does not match",
                                    lambda d: ds_of(d)["spec"]["selector"]["matchLabels"].__setitem__("x", "y")),
        "env not read by the entrypoint": ("env NOT_READ_ANYWHERE is not read",
                                           lambda d: pod(d)["containers"][0]["env"].append(
                                               {"name": "NOT_READ_ANYWHERE", "value": "1"})),
        "no hostPID": ("needs hostPID: true", lambda d: pod(d).__setitem__("hostPID", False)),
        "not privileged": ("is not privileged", lambda d: pod(d)["containers"][0].pop("securityContext")),
        "ConfigMap drifted from default.json": ("differs from cni-like-config/default.json",
                                                lambda d: cm_of(d)["data"].__setitem__(
                                                    "50-default.json", cm_of(d)["data"]["50-default.json"] + "\n")),
    }
    rep = Report()
    clean = Report(quiet=True)
    check_all(docs, clean, entrypoint_text, default_json)
    rep.check("selftest: the manifests as they are pass", [] if clean.failed == 0 else
              [f"{clean.failed} failure(s) without any break"])
    for what, (expected, brk) in breaks.items():
        d = copy.deepcopy(docs)
        brk(d)
        r = Report(quiet=True)
        check_all(d, r, entrypoint_text, default_json)
        found = any(expected in e for e in r.errors)
        rep.check(f"selftest: {what} is reported", [] if found else
                  [f"no error containing `{expected}`; got: {r.errors or 'none'}"])
    return rep


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dir", default=os.path.join(TOP, "deploy/kubernetes"))
    ap.add_argument("--hook", help="an ioweight-hook binary to validate the ConfigMap's files with")
    ap.add_argument("--update-configmap", action="store_true",
                    help="rewrite configmap.yaml's 50-default.json from cni-like-config/default.json")
    ap.add_argument("--selftest", action="store_true")
    a = ap.parse_args()

    with open(os.path.join(TOP, "cni-like-config/default.json")) as f:
        default_json = f.read()
    if a.update_configmap:
        update_configmap(os.path.join(a.dir, "configmap.yaml"), default_json)
    ep = os.path.join(a.dir, "image/entrypoint.sh")
    entrypoint_text = open(ep).read() if os.path.exists(ep) else None
    try:
        docs = load(a.dir)
    except yaml.YAMLError as e:
        print(f"not ok 1 - the manifests parse as YAML\n#   {e}")
        print("check-manifests: 0 passed, 1 failed")
        return 1
    if not docs:
        sys.exit(f"check-manifests.py: no *.yaml in {a.dir}")
    if a.selftest:
        rep = selftest(docs, entrypoint_text, default_json)
    else:
        rep = Report()
        rep.check(f"{len(docs)} files parse as YAML ({sum(len(d) for d in docs.values())} documents)", [])
        check_all(docs, rep, entrypoint_text, default_json, a.hook)
    print(f"check-manifests: {rep.n - rep.failed} passed, {rep.failed} failed")
    return 1 if rep.failed else 0


if __name__ == "__main__":
    sys.exit(main())

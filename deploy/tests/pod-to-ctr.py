#!/usr/bin/env python3
"""Turn the installer DaemonSet's pod into a `ctr run` for the test guest.

  deploy/tests/pod-to-ctr.py OUTDIR [--set NAME=VALUE]...

Reads deploy/kubernetes/daemonset.yaml and configmap.yaml and writes, for
deploy/tests/guest/installer-check.sh:

  OUTDIR/ctr-args     one `ctr run` argument per line: --privileged, the host
                      PID namespace (hostPID), a bind mount per volumeMount
                      (hostPath: the host path; configMap: OUTDIR/configmap;
                      emptyDir: /run/ioweight-test/<volume>), --env per env
                      entry (fieldRef spec.nodeName: the guest's hostname)
  OUTDIR/mkdirs       host paths to create first (hostPath DirectoryOrCreate)
  OUTDIR/emptydirs    the emptyDir mount points, as volume-name mount-path
  OUTDIR/configmap/   the ConfigMap's items as the kubelet projects them
                      (..data link, one link per item)
  OUTDIR/image        the container's image reference

--set overrides one env value (the guest has no systemd: CONTAINERD_RESTART).
Every field the DaemonSet uses and this cannot express is an error.
"""
import os
import shutil
import sys

import yaml

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KDIR = os.path.join(TOP, "deploy/kubernetes")


def die(msg):
    sys.exit(f"pod-to-ctr.py: {msg}")


def main():
    if len(sys.argv) < 2:
        die("usage: pod-to-ctr.py OUTDIR [--set NAME=VALUE]...")
    out = sys.argv[1]
    sets = {}
    rest = sys.argv[2:]
    while rest:
        if rest[0] != "--set" or len(rest) < 2 or "=" not in rest[1]:
            die(f"unexpected arguments {rest}")
        k, v = rest[1].split("=", 1)
        sets[k] = v
        rest = rest[2:]

    with open(os.path.join(KDIR, "daemonset.yaml")) as f:
        ds = yaml.safe_load(f)
    with open(os.path.join(KDIR, "configmap.yaml")) as f:
        cm = yaml.safe_load(f)
    pod = ds["spec"]["template"]["spec"]
    if len(pod["containers"]) != 1:
        die("the DaemonSet has more than one container")
    c = pod["containers"][0]
    vols = {v["name"]: v for v in pod.get("volumes", [])}

    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(os.path.join(out, "configmap"))
    args, mkdirs, empties = [], [], []
    if (c.get("securityContext") or {}).get("privileged"):
        args.append("--privileged")
    if pod.get("hostPID"):
        args += ["--with-ns", "pid:/proc/1/ns/pid"]
    for m in c.get("volumeMounts", []):
        v = vols[m["name"]]
        mode = "ro" if m.get("readOnly") else "rw"
        if "hostPath" in v:
            src = v["hostPath"]["path"]
            if v["hostPath"].get("type") == "DirectoryOrCreate":
                mkdirs.append(src)
        elif "configMap" in v:
            if v["configMap"]["name"] != cm["metadata"]["name"]:
                die(f"volume {m['name']} uses ConfigMap {v['configMap']['name']}, not {cm['metadata']['name']}")
            data_dir = os.path.join(out, "configmap", "..2000_01_01_00_00_00.0")
            os.makedirs(data_dir)
            os.symlink(os.path.basename(data_dir), os.path.join(out, "configmap", "..data"))
            for it in v["configMap"].get("items") or [{"key": k, "path": k} for k in cm["data"]]:
                with open(os.path.join(data_dir, it["path"]), "w") as f:
                    f.write(cm["data"][it["key"]])
                os.symlink(os.path.join("..data", it["path"]), os.path.join(out, "configmap", it["path"]))
            src = "@CONFIGMAP@"
        elif "emptyDir" in v:
            src = f"/run/ioweight-test/{m['name']}"
            mkdirs.append(src)
            empties.append(f"{m['name']} {m['mountPath']}")
        else:
            die(f"volume {m['name']}: no hostPath, configMap or emptyDir")
        args += ["--mount", f"type=bind,src={src},dst={m['mountPath']},options=rbind:{mode}"]
    for e in c.get("env", []):
        if e["name"] in sets:
            val = sets.pop(e["name"])
        elif "value" in e:
            val = e["value"]
        elif (e.get("valueFrom") or {}).get("fieldRef", {}).get("fieldPath") == "spec.nodeName":
            val = "@NODENAME@"
        else:
            die(f"env {e['name']}: only value and fieldRef spec.nodeName are supported")
        args += ["--env", f"{e['name']}={val}"]
    if sets:
        die(f"--set names no env of the container: {sorted(sets)}")
    if c.get("command"):
        args.append("@IMAGE@")
        args.append("@NAME@")
        args += c["command"] + c.get("args", [])
    with open(os.path.join(out, "ctr-args"), "w") as f:
        f.write("".join(a + "\n" for a in args))
    with open(os.path.join(out, "mkdirs"), "w") as f:
        f.write("".join(p + "\n" for p in mkdirs))
    with open(os.path.join(out, "emptydirs"), "w") as f:
        f.write("".join(p + "\n" for p in empties))
    with open(os.path.join(out, "image"), "w") as f:
        f.write(c["image"] + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

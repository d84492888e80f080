#!/usr/bin/env bash
# Generate the Python gRPC stubs of the CRI subset e2e/cri/runtime.proto
# into build/e2e/cri/ (runtime_pb2.py, runtime_pb2_grpc.py), which the guest's
# CRI client e2e/guest/kcri imports. Rebuilt only when the proto or this
# script changes.
#
#   e2e/cri-stubs.sh
#
# Debian's python3-grpc-tools (e2e/host-packages.txt) runs protoc; its output
# loads with the guest's python3-protobuf and python3-grpcio (both bookworm).
set -euo pipefail

top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/e2e/cri
proto=$top/e2e/cri/runtime.proto
py=/usr/bin/python3 # Debian's, where python3-grpc-tools installs

die() { echo "e2e/cri-stubs.sh: $*" >&2; exit 1; }

key=$(cat "$proto" "$0" | sha1sum | cut -c1-16)
if [ -f "$out/runtime_pb2.py" ] && [ -f "$out/runtime_pb2_grpc.py" ] &&
   [ "$(cat "$out/stamp" 2>/dev/null)" = "$key" ]; then
	echo "[cri-stubs] up to date (build/e2e/cri, key $key)"
	exit 0
fi
if ! "$py" -c 'import grpc_tools.protoc' 2> /dev/null; then
	echo "[cri-stubs] installing python3-grpc-tools (e2e/host-packages.txt)"
	"$top/vm/deps.sh" "$top/e2e/host-packages.txt" || die "cannot install python3-grpc-tools"
fi
rm -rf "$out.tmp" && mkdir -p "$out.tmp"
"$py" -m grpc_tools.protoc -I"$(dirname "$proto")" --python_out="$out.tmp" \
	--grpc_python_out="$out.tmp" "$proto" || die "protoc failed on $proto"
# the stubs must load and round-trip a message on this host's python3-protobuf
(cd "$out.tmp" && "$py" -c '
import runtime_pb2 as r, runtime_pb2_grpc as g
m = r.RunPodSandboxRequest(runtime_handler="h")
m.config.annotations["k"] = "v"
assert r.RunPodSandboxRequest.FromString(m.SerializeToString()) == m
assert hasattr(g, "RuntimeServiceStub") and hasattr(g, "ImageServiceStub")
') || die "the generated stubs do not load (see above)"
echo "$key" > "$out.tmp/stamp"
rm -rf "$out" && mv "$out.tmp" "$out"
echo "[cri-stubs] generated build/e2e/cri/runtime_pb2{,_grpc}.py from e2e/cri/runtime.proto"

#!/usr/bin/env bash
# Builds what the device calls carry: the rtopk binary, the GPU test binaries, the wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --bin rtopk 2>&1 | tail -1
rm -rf devbin/tests devbin/rtopk devbin/*.whl; mkdir -p devbin/tests
cp target/release/rtopk devbin/rtopk && strip devbin/rtopk
cargo test -p rtopk-cuda -p rtopk --release --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys, shutil, os
for line in sys.stdin:
    try: m = json.loads(line)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable") and m["target"]["kind"] != ["bin"]:
        name = m["target"]["name"].replace("-", "_")
        if m["target"]["kind"] == ["lib"]: name = m["package_id"].split("#")[0].rsplit("/",1)[-1].split("@")[0].replace("-","_") + "_lib"
        shutil.copy(m["executable"], f"devbin/tests/{name}")
'
for t in devbin/tests/*; do strip "$t"; done
python3 -m pip wheel -q --no-deps -w devbin ./crates/rtopk-py
ls devbin devbin/tests; du -sh devbin

#!/usr/bin/env bash
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
out=$OUT; mkdir -p $out/r
date -u +%Y-%m-%dT%H:%MZ | tee $out/r/date.txt
( OUT_DIR=$out/r/peers BUILD_ONLY=1 bash bench/peers/run.sh > $out/r/peers_build.txt 2>&1; echo "peer build rc=$?" ) &
bpid=$!
s=$SECONDS
devbin/rtopk bench cuda --grid wide --strategy split --reps 15 --json > $out/r/wide_split.json 2> $out/r/wide_split.log; echo "wide split rc=$? $((SECONDS-s)) s"
devbin/rtopk bench cuda --grid wide,vector,split --reps 15 --json > $out/r/regimes_auto.json 2> $out/r/regimes_auto.log; echo "regimes auto rc=$? $((SECONDS-s)) s"
wait $bpid
tail -3 $out/r/peers_build.txt
s=$SECONDS
OUT_DIR=$out/r/peers timeout 330 bash bench/peers/run.sh --reps 20 > $out/r/peers_run.txt 2>&1; echo "peers rc=$? $((SECONDS-s)) s"
tail -5 $out/r/peers_run.txt; wc -l $out/r/peers/peers.jsonl
cd $out && tar czf r.tgz r && rm -rf r

#!/usr/bin/env bash
# tests/perf/bench_bvh.sh: the BVH build's numbers for issue #35 on a CUDA machine, in one
# command: the displaced sphere (tests/perf/make_sphere_mesh.py) at 20 K, 1 M and 4 M
# triangles as binary PLY; for each, tests/bench_bvh (every builder: build time, the GPU's
# device time with the prims on the device, nodes, depth, SAH cost, CPU trace rates) and
# `stencilray render --depth 1` on the default backend and on the CPU (wall time to the
# written PNG, and the summary's setup), and on the default backend with the reordering
# treelets ($SR_BVH_TREELETS=reorder). Everything printed lands in OUT_DIR/bvh_bench.txt.
#
# usage: tests/perf/bench_bvh.sh BUILD_DIR OUT_DIR   ($SR_BVH_BENCH_SIDES: other N, e.g. "100")
set -euo pipefail
build=${1:?usage: bench_bvh.sh BUILD_DIR OUT_DIR}
out=${2:?usage: bench_bvh.sh BUILD_DIR OUT_DIR}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$out/bvh_bench.txt"
: > "$log"
say() { printf '\n== %s\n' "$*" | tee -a "$log"; }

for n in ${SR_BVH_BENCH_SIDES:-100 708 1416}; do   # 2 N^2 triangles: 20,000, 1,002,528, 4,010,112
    python3 "$here/make_sphere_mesh.py" "$tmp" "n=$n" | tee -a "$log"
    scene="$tmp/sphere-n$n-ply.json"
    say "bench_bvh, N = $n"
    "$build/tests/bench_bvh" "$scene" --runs 5 --rays 100000 2>&1 | tee -a "$log"
    for backend in auto cpu; do
        say "render --depth 1 --backend $backend, N = $n"
        start=$(date +%s.%N)
        "$build/stencilray" render "$scene" --depth 1 --backend "$backend" -o "$tmp/out.png" 2>&1 | tee -a "$log"
        end=$(date +%s.%N)
        awk -v a="$start" -v b="$end" 'BEGIN { printf "wall %.3f s\n", b - a }' | tee -a "$log"
    done
    say "render --depth 1, reordering treelets (SR_BVH_TREELETS=reorder), N = $n"
    start=$(date +%s.%N)
    SR_BVH_TREELETS=reorder "$build/stencilray" render "$scene" --depth 1 -o "$tmp/out.png" 2>&1 | tee -a "$log"
    end=$(date +%s.%N)
    awk -v a="$start" -v b="$end" 'BEGIN { printf "wall %.3f s\n", b - a }' | tee -a "$log"
done

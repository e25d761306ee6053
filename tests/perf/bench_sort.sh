#!/usr/bin/env bash
# tests/perf/bench_sort.sh: every number of docs/performance.md's coherence-sort section, on a
# CUDA machine, in one command:
#   1. the GPU sort tests (test_gpu_sort: correctness of merge and radix, the pool stage, and
#      bit-identical images with every --sort and --sort-key),
#   2. bench --sort-micro: keys/s of merge vs radix at 1 M, 8 M and 32 M keys, and reordering
#      by index + gather vs sorting the ray state itself,
#   3. FPS per depth (1-8) on every shipped scene with --mask compact and --sort none, merge,
#      radix (dir-morton key), merge and radix with the material key, and the unsorted
#      baseline that compacts after every bounce as the sort does; all with --breakdown.
# Three files land in OUT_DIR: sort_bench.txt (everything printed), sort_micro.csv and
# sort_scenes.csv (one row per scene, variant, depth and sort, with the breakdown columns).
#
# usage: tests/perf/bench_sort.sh BUILD_DIR OUT_DIR [WIDTHxHEIGHT] [FRAMES]
#   e.g. bash .gpu/run.sh bash tests/perf/bench_sort.sh build-gpu "$OUT"
set -euo pipefail
build=${1:?usage: bench_sort.sh BUILD_DIR OUT_DIR [WIDTHxHEIGHT] [FRAMES]}
out=${2:?usage: bench_sort.sh BUILD_DIR OUT_DIR [WIDTHxHEIGHT] [FRAMES]}
size=${3:-1920x1080}
frames=${4:-20}
width=${size%x*}
height=${size#*x}
sr="$build/stencilray"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log="$out/sort_bench.txt"
: > "$log"

say() { printf '\n== %s\n' "$*" | tee -a "$log"; }

say "GPU sort tests"
ctest --test-dir "$build" -R test_gpu_sort --output-on-failure 2>&1 | tee -a "$log" || echo "test_gpu_sort FAILED" | tee -a "$log"

say "sort micro-benchmark"
"$sr" bench --sort-micro --frames "$frames" -q --csv "$out/sort_micro.csv" 2>&1 | tee -a "$log" ||
    echo "bench --sort-micro FAILED" | tee -a "$log"

echo "scene,variant,depth,mask,sort,median_ms,fps,min_ms,max_ms,spread,noisy,rays_per_frame,mrays_per_s,live_after,generate_ms,intersect_ms,shade_ms,compact_ms,sort_ms" \
    > "$tmp/scenes.csv"
run() {   # scene variant bench-options...
    local scene=$1 variant=$2
    shift 2
    say "$scene, $variant, ${width}x${height}"
    rm -f "$tmp/one.csv"
    "$sr" bench "scenes/$scene.json" --width "$width" --height "$height" --depth 1-8 --mask compact \
        --frames "$frames" --breakdown -q --csv "$tmp/one.csv" "$@" 2>&1 | tee -a "$log" ||
        echo "bench $scene $variant FAILED" | tee -a "$log"
    [ -f "$tmp/one.csv" ] && tail -n +2 "$tmp/one.csv" | sed "s/^/$scene,$variant,/" >> "$tmp/scenes.csv"
    return 0
}
for scene in default cornell mirror_hall mesh cornell_path sphere_field; do
    run "$scene" dir-morton --sort none,merge,radix --sort-key dir-morton
    run "$scene" material --sort merge,radix --sort-key material
    run "$scene" compact-every-bounce --sort none --compact-below 1
done
cp "$tmp/scenes.csv" "$out/sort_scenes.csv"
say "done: $out/sort_bench.txt, $out/sort_micro.csv, $out/sort_scenes.csv"

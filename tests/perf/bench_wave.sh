#!/usr/bin/env bash
# tests/perf/bench_wave.sh: every number of docs/performance.md, on a CUDA
# machine, in one command (tests/perf/wave_tables.py turns the JSON into its tables):
#   1. FPS per depth 1-8 of every mask on every shipped scene at 1920x1080 and 3840x2160,
#   2. the path-traced scenes at depth 8 and 50 (the host launches nothing per bounce),
#   3. the per-bounce breakdown of the compact mask (what a sparse bounce costs as a launch),
#      and the default mask's depths 1-8 again at 100 frames a depth (what one more bounce
#      costs it: a difference of two medians, which 10 frames leave too noisy),
#   4. bench --micro (ballot partition against CUB),
#   5. the showcase scene at 1080p, depth 8, every mask (the cost of textures, smooth normals
#      and the environment map),
#   6. with a measurement build given (MEASURE_BUILD_DIR, configured -DSR_MEASURE=ON): every
#      scene on the general build of the kernels ($SR_NO_PLAIN_KERNELS) and, for a
#      like-for-like base, on the measurement build as it is (its wave kernel carries the warp
#      timeline's code), wave and megakernel at both sizes, depths 1-8 (what the narrower
#      builds buy).
# The megakernel's launch bounds and its deferred twin were settled on 2026-11-27 with runs of
# this script from before (docs/experiments.md); no build has the twins any more.
# JSON files land in OUT_DIR, with bench.txt (everything printed).
#
# usage: tests/perf/bench_wave.sh BUILD_DIR OUT_DIR [FRAMES [MEASURE_BUILD_DIR]]
#   e.g. bash .gpu/run.sh bash tests/perf/bench_wave.sh build-gpu "$OUT/wave"
set -euo pipefail
usage="usage: bench_wave.sh BUILD_DIR OUT_DIR [FRAMES [MEASURE_BUILD_DIR]]"
build=${1:?$usage}
out=${2:?$usage}
frames=${3:-10}
measure=${4:-}
sr="$build/stencilray"
mkdir -p "$out"
log="$out/bench.txt"
: > "$log"
run() { echo "\$ stencilray $*" >> "$log"; "$sr" "$@" -q >> "$log" 2>&1; }
for scene in default cornell mirror_hall mesh cornell_path sphere_field; do
  for size in 1920x1080 3840x2160; do
    run bench "scenes/$scene.json" --width "${size%x*}" --height "${size#*x}" --depth 1-8 --frames "$frames" \
        --json "$out/bench_${scene}_${size%x*}.json"
  done
done
for scene in cornell_path sphere_field; do
  for depth in 8 50; do
    run bench "scenes/$scene.json" --width 1920 --height 1080 --depth "$depth" --frames 20 \
        --mask compact,wave,megakernel --json "$out/deep_${scene}_${depth}.json"
  done
done
for scene in default sphere_field; do
  run bench "scenes/$scene.json" --width 1920 --height 1080 --depth 8 --frames 20 --mask compact --breakdown \
      --json "$out/breakdown_${scene}.json"
done
for scene in default cornell mirror_hall mesh cornell_path sphere_field; do
  run bench "scenes/$scene.json" --width 1920 --height 1080 --depth 1-8 --frames 100 --mask wave \
      --json "$out/marginal_${scene}.json"
done
run bench --micro --frames 20 --json "$out/micro.json"
run bench scenes/showcase.json --width 1920 --height 1080 --depth 8 --frames 10 --json "$out/showcase_1920.json"
[ -n "$measure" ] || exit 0
sr="$measure/stencilray"
for scene in default cornell mirror_hall mesh cornell_path sphere_field; do
  for size in 1920x1080 3840x2160; do
    run bench "scenes/$scene.json" --width "${size%x*}" --height "${size#*x}" --depth 1-8 \
        --frames "$frames" --mask wave,megakernel --json "$out/measured_${scene}_${size%x*}.json"
    SR_NO_PLAIN_KERNELS=1 run bench "scenes/$scene.json" --width "${size%x*}" --height "${size#*x}" --depth 1-8 \
        --frames "$frames" --mask wave,megakernel --json "$out/general_${scene}_${size%x*}.json"
  done
done

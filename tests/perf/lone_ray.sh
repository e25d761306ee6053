#!/usr/bin/env bash
# tests/perf/lone_ray.sh: what one bounce of one ray costs on an otherwise idle GPU, the floor
# under the mesh's marginal bounce (target 3 in docs/performance.md). A bounce's cost there is the frame
# time at depth d minus depth d-1, and the frame ends with its deepest paths; so no order of the
# work can make a bounce cheaper than the walk of the ray that takes it.
#
#   1. On the CPU backend, look-at points of the mesh scene's camera whose 1x1 image's ray has
#      an 8-segment path (sample 0), found over a grid round the torus knot's left side, where
#      a coarser scan (-2..1.2 x 0.2..3 by 0.1) found the deepest.
#   2. On the GPU, each such 1x1 image at depths 1-8, 100 frames, wave (no repacking, launch
#      order) and megakernel: one thread runs. The frames' samples differ, so the paths do too,
#      but every path there takes its second bounce (live after bounce 1: 1.000), so the
#      median at depth 2 minus the median at depth 1 is a lone ray's second bounce.
#   3. The whole 1920x1080 image at depth 1 (the "full bounce" target 3 compares with).
# Prints one line per point and a summary; JSON and the printed tables land in OUT_DIR.
# $LONE_RAY_FRAMES (default 100) and $LONE_RAY_FULL (default 1920x1080) shrink a run (the
# script's own test, tests/perf/test_lone_ray.sh, runs it so on the CPU).
#
# usage: tests/perf/lone_ray.sh BUILD_DIR OUT_DIR
#   e.g. bash .gpu/run.sh bash tests/perf/lone_ray.sh build-gpu "$OUT/lone"
set -euo pipefail
export LC_ALL=C   # seq and awk write decimal points, which the camera argument needs
build=${1:?usage: lone_ray.sh BUILD_DIR OUT_DIR}
out=${2:?usage: lone_ray.sh BUILD_DIR OUT_DIR}
frames=${LONE_RAY_FRAMES:-100}
full=${LONE_RAY_FULL:-1920x1080}
sr="$build/stencilray"
scene="$(cd "$(dirname "$0")/../.." && pwd)/scenes/mesh.json"
eye=0,2.2,7   # the scene's camera position
mkdir -p "$out"

# Column 10 of a bench row is the rays (segments) a frame traced.
segments() {
  "$sr" bench "$scene" --backend cpu --width 1 --height 1 --depth 8 --frames 1 --warmup 0 \
      --mask stencil --camera "$eye,$1,$2,0,1" -q | awk '$2 == "stencil" { print $10 }'
}
: > "$out/points.txt"
for lx in $(seq -1.5 0.02 -1.1); do
  for ly in $(seq 0.9 0.02 1.4); do
    [ "$(segments "$lx" "$ly")" = 8 ] && echo "$lx,$ly" >> "$out/points.txt"
  done
done
[ -s "$out/points.txt" ] || { echo "lone_ray.sh: no 8-segment ray found" >&2; exit 1; }

# Median frame time (ms) of MASK at DEPTH in a bench table.
median() { awk -v d="$2" -v m="$3" '$1 == d && $2 == m { print $4 }' "$1"; }
# MASK's second bounce in a bench table: depth 2's median minus depth 1's, in whole us.
second_bounce_us() {
  awk -v a="$(median "$1" 2 "$2")" -v b="$(median "$1" 1 "$2")" 'BEGIN { printf "%.0f", (a - b) * 1000 }'
}
i=0
printf '%-14s %12s %12s\n' "look-at x,y" "wave us" "megakernel us" > "$out/summary.txt"
while read -r point; do
  i=$((i + 1))
  table="$out/lone_$i.txt"
  "$sr" bench "$scene" --width 1 --height 1 --depth 1-8 --frames "$frames" --warmup 10 --mask wave,megakernel \
      --wave-dense 1 --wave-order launch --camera "$eye,$point,0,1" --json "$out/lone_$i.json" -q > "$table"
  printf '%-14s %12s %12s\n' "$point" "$(second_bounce_us "$table" wave)" "$(second_bounce_us "$table" megakernel)" \
      >> "$out/summary.txt"
done < "$out/points.txt"

"$sr" bench "$scene" --width "${full%x*}" --height "${full#*x}" --depth 1 --frames "$frames" --mask wave \
    --json "$out/full.json" -q > "$out/full.txt"
full_ms=$(median "$out/full.txt" 1 wave)
tail -n +2 "$out/summary.txt" | awk '{ print $2 }' | sort -n | awk -v full="$full_ms" -v size="$full" '{ w[NR] = $1 } END {
    printf "%d rays; a lone ray'"'"'s second bounce (wave): min %d, median %d, max %d us\n", NR, w[1], w[int((NR + 1) / 2)], w[NR]
    printf "the %s depth-1 frame: %.3f ms; 5 %% of it: %.1f us\n", size, full, full * 50 }' >> "$out/summary.txt"
cat "$out/summary.txt"

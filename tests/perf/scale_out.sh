#!/usr/bin/env bash
# tests/perf/scale_out.sh: how a render scales over the GPUs of one machine, in one process
# (render --device 0,1,...) and as one MPI rank per GPU (mpirun -np N, each rank --device
# <its local rank>), on 4K path-traced frames of sphere_field and cornell_path at 1024 spp, and
# a 16-frame 1080p sequence (scenes/orbit.json, path-traced) over 4 ranks. Prints a table:
# devices, mode, scene, wall seconds (the whole command), render seconds (--stats render_s:
# from the first pass to every film summed on rank 0), and the speed-up of each against one
# device in the same run. Every image is compared with the one-device image of its scene
# (cmp): any split must give the same bytes.
#
# OUT_DIR gets two files only (the device tool brings back a few): scale_out.txt, the table,
# and scale_out.log, every run's output; the images go to a scratch folder, removed after.
#
# usage: tests/perf/scale_out.sh BUILD_DIR OUT_DIR [frames|sequence|all] [MAX_DEVICES]
#   on the GPU machine, through ../shared/gpu/bundle.sh's runner:
#   bash .gpu/run.sh bash tests/perf/scale_out.sh build-gpu "$OUT/scale" frames 4
# Environment: SPP (default 1024), SEQ_SPP (default 256), SCENES (default "sphere_field
# cornell_path"), SIZE (default 3840x2160), SEQ_SIZE (default 1920x1080; a dry run on the CPU
# build: SIZE=64x36 SEQ_SIZE=32x18 with a stand-in nvidia-smi). Needs a build with -DSR_WITH_MPI=ON for the MPI rows (skipped otherwise),
# and mpirun: the machine's own, or tests/perf/pack_openmpi.sh's (source .gpu/openmpi/env.sh).
set -uo pipefail
build=${1:?usage: scale_out.sh BUILD_DIR OUT_DIR [frames|sequence|all] [MAX_DEVICES]}
out=${2:?usage: scale_out.sh BUILD_DIR OUT_DIR [frames|sequence|all] [MAX_DEVICES]}
what=${3:-all}
max=${4:-4}
spp=${SPP:-1024}
seq_spp=${SEQ_SPP:-256}
scenes=${SCENES:-"sphere_field cornell_path"}
size=${SIZE:-3840x2160}
seq_size=${SEQ_SIZE:-1920x1080}
exe="$build/stencilray"
mkdir -p "$out"
table="$out/scale_out.txt"
log="$out/scale_out.log"
: > "$log"
work=$(mktemp -d "${TMPDIR:-/tmp}/scale_out.XXXXXX")
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)
[ "$gpus" -ge 1 ] || { echo "scale_out.sh: no GPU (nvidia-smi -L lists none)" >&2; exit 1; }
[ "$max" -le "$gpus" ] || max=$gpus
mpi=""
if command -v mpirun >/dev/null && ldd "$exe" | grep -q libmpi; then mpi=1; fi
counts=""
for n in 1 2 4 8; do [ "$n" -le "$max" ] && counts="$counts $n"; done
{
  echo "# scale_out.sh $(date -u +%Y-%m-%dT%H:%MZ) on $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | sed 's/^ *//' | paste -sd,)"
  echo "# $(nvidia-smi topo -m 2>/dev/null | sed -n 2p | tr -s ' \t' ' ')"
  printf "%-8s %-12s %-14s %10s %10s %9s %s\n" devices mode scene wall_s render_s speedup same_bytes
} | tee "$table"

list() { seq -s, 0 $(($1 - 1)); }   # "0,1,...,n-1"
render_s() { sed -n 's/.*"render_s":[[:space:]]*\([0-9.e+-]*\).*/\1/p' "$1" | awk 'NR == 1 { printf "%.3f", $1 }'; }

row() {   # devices mode scene wall render base_render same
  local speed="-"
  [ -n "$6" ] && [ -n "$5" ] && speed=$(awk -v b="$6" -v r="$5" 'BEGIN { printf "%.2fx", b / r }')
  printf "%-8s %-12s %-14s %10s %10s %9s %s\n" "$1" "$2" "$3" "$4" "$5" "$speed" "$7" | tee -a "$table"
}

if [ "$what" = frames ] || [ "$what" = all ]; then
  for scene in $scenes; do
    base=""
    for n in $counts; do
      for mode in process mpi; do
        [ "$mode" = mpi ] && { [ -n "$mpi" ] && [ "$n" -gt 1 ] || continue; }
        img="$work/${scene}_${mode}_$n.exr"; stats="$work/${scene}_${mode}_$n.json"; runlog="$work/run.log"
        common=(render "scenes/$scene.json" --width "${size%x*}" --height "${size#*x}" --spp "$spp" --integrator path -q
                --exr-type float -o "$img")
        t0=$(date +%s.%N)
        if [ "$mode" = process ]; then
          "$exe" "${common[@]}" --device "$(list "$n")" --stats "$stats" > "$runlog" 2>&1
        else
          # One rank per GPU: each rank's device is its local rank (Open MPI's variable).
          mpirun --bind-to none -np "$n" sh -c 'exec "$0" "$@" --device "$OMPI_COMM_WORLD_LOCAL_RANK"' \
            "$exe" "${common[@]}" --stats "$stats" > "$runlog" 2>&1
        fi
        rc=$?
        { echo "== $scene, $mode, $n devices: exit $rc"; cat "$runlog"; [ -f "$stats" ] && cat "$stats"; } >> "$log"
        wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
        [ $rc -eq 0 ] || { row "$n" "$mode" "$scene" "$wall" "" "" "exit $rc (see scale_out.log)"; continue; }
        r=$(render_s "$stats")
        [ -z "$base" ] && base=$r
        same=yes
        cmp -s "$img" "$work/${scene}_process_1.exr" || same=NO
        row "$n" "$mode" "$scene" "$wall" "$r" "$base" "$same"
      done
    done
  done
fi

if [ "$what" = sequence ] || [ "$what" = all ]; then
  n=$max; [ "$n" -gt 4 ] && n=4
  seq_common=(render scenes/orbit.json --frames 0-15 --width "${seq_size%x*}" --height "${seq_size#*x}" --spp "$seq_spp" --integrator path -q)
  for mode in process-1 process mpi; do
    [ "$mode" = mpi ] && [ -z "$mpi" ] && continue
    dir="$work/seq_$mode"; rm -rf "$dir"; mkdir -p "$dir"
    t0=$(date +%s.%N)
    case $mode in
      process-1) "$exe" "${seq_common[@]}" --device 0 -o "$dir/f_%02d.png" > "$dir.log" 2>&1 ;;
      process) "$exe" "${seq_common[@]}" --device "$(list "$n")" -o "$dir/f_%02d.png" > "$dir.log" 2>&1 ;;
      mpi) mpirun --bind-to none -np "$n" sh -c 'exec "$0" "$@" --device "$OMPI_COMM_WORLD_LOCAL_RANK"' \
             "$exe" "${seq_common[@]}" -o "$dir/f_%02d.png" > "$dir.log" 2>&1 ;;
    esac
    rc=$?
    { echo "== sequence, $mode: exit $rc"; cat "$dir.log"; } >> "$log"
    wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
    [ "$mode" = process-1 ] && seq_base=$wall
    same=yes
    for f in "$work/seq_process-1"/f_*.png; do cmp -s "$f" "$dir/$(basename "$f")" || same=NO; done
    [ $rc -eq 0 ] || same="exit $rc (see scale_out.log)"
    row "$([ "$mode" = process-1 ] && echo 1 || echo "$n")" "seq-$mode" "orbit-16f" "$wall" "$wall" "${seq_base:-}" "$same"
  done
fi
echo "table: $table"

#!/usr/bin/env bash
# tests/gpu_checks.sh: what whoever changes GPU code runs on a CUDA machine before it lands:
#   1. every GPU test (ctest -L gpu, verbose: each prints what it compared),
#   2. compute-sanitizer memcheck over every GPU test program,
#   3. compute-sanitizer racecheck over the wave mask's test of every way to run it (the
#      queue), the slowest tool, so one cmocka test only,
# each into its own log in OUT_DIR, and a summary line per step on stdout and in summary.txt.
# The benchmark is separate (tests/perf/bench_wave.sh).
#
# usage: tests/gpu_checks.sh BUILD_DIR OUT_DIR
#   e.g. bash .gpu/run.sh bash tests/gpu_checks.sh build-gpu "$OUT/checks"
set -uo pipefail
build=${1:?usage: gpu_checks.sh BUILD_DIR OUT_DIR}
out=${2:?usage: gpu_checks.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

ctest --test-dir "$build" -L gpu -V > "$out/ctest_gpu.txt" 2>&1
say "gpu tests: exit $? ($(grep -Eo '[0-9]+% tests passed.*' "$out/ctest_gpu.txt" | tail -1)," \
    "$(grep -c '\*\*\*Skipped' "$out/ctest_gpu.txt") skipped)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$san" ]; then
    say "compute-sanitizer: not found (on PATH or in /usr/local/cuda/bin); the sanitizer steps did not run"
    exit 1
fi

# The sanitizers slow kernels a hundredfold: the tests know (timeouts, the intended fault).
export SR_TEST_UNDER_SANITIZER=1
for t in "$build"/tests/test_gpu_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    # The faults test's failing launches and allocation are intended: not reported as errors.
    api=explicit
    [ "$name" = test_gpu_faults ] && api=no
    "$san" --tool memcheck --report-api-errors "$api" --error-exitcode 1 "$t" > "$out/memcheck_$name.txt" 2>&1
    code=$?
    [ "$code" = 77 ] && code="77 (no device)"
    say "memcheck $name: exit $code ($(grep -Eo 'ERROR SUMMARY: [0-9]+ errors?' "$out/memcheck_$name.txt" | tail -1))"
done
"$san" --tool racecheck --error-exitcode 1 "$build/tests/test_gpu_match" test_wave_rounds_identical \
    > "$out/racecheck.txt" 2>&1
say "racecheck test_gpu_match test_wave_rounds_identical: exit $? ($(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazards? displayed' "$out/racecheck.txt" | tail -1))"

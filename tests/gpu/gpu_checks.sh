#!/usr/bin/env bash
# tests/gpu/gpu_checks.sh: what whoever changes GPU code runs on a CUDA machine before it lands:
#   1. every GPU test but the fault tests (ctest -L gpu, verbose: each prints what it
#      compared),
#   2. compute-sanitizer memcheck over every GPU test program,
#   3. compute-sanitizer racecheck over the wave mask's test of every way to run it (the
#      queue), the slowest tool, so one cmocka test only,
#   4. the fault tests, last: their intended illegal address can leave the machine's GL
#      interop broken for every later process (tests/CMakeLists.txt),
# each into its own log in OUT_DIR, and a summary line per step on stdout and in summary.txt.
# The benchmark is separate (tests/perf/bench_wave.sh).
#
# usage: tests/gpu/gpu_checks.sh BUILD_DIR OUT_DIR
#   e.g. bash .gpu/run.sh bash tests/gpu/gpu_checks.sh build-gpu "$OUT/checks"
set -uo pipefail
build=${1:?usage: gpu_checks.sh BUILD_DIR OUT_DIR}
out=${2:?usage: gpu_checks.sh BUILD_DIR OUT_DIR}
mkdir -p "$out"
summary="$out/summary.txt"
: > "$summary"
say() { echo "$*" | tee -a "$summary"; }

ctest --test-dir "$build" -L gpu -E '^test_gpu_faults$' -V > "$out/ctest_gpu.txt" 2>&1
say "gpu tests: exit $? ($(grep -Eo '[0-9]+% tests passed.*' "$out/ctest_gpu.txt" | tail -1)," \
    "$(grep -c '\*\*\*Skipped' "$out/ctest_gpu.txt") skipped)"
san=$(command -v compute-sanitizer || echo /usr/local/cuda/bin/compute-sanitizer)
if [ ! -x "$san" ]; then
    say "compute-sanitizer: not found (on PATH or in /usr/local/cuda/bin); the sanitizer steps did not run"
    exit 1
fi

# The sanitizers slow kernels a hundredfold: the tests know (timeouts, the intended fault).
export SR_TEST_UNDER_SANITIZER=1
here=$(dirname "$0")
for t in "$build"/tests/test_gpu_*; do
    [ -x "$t" ] || continue
    name=$(basename "$t")
    # The faults test's failing launches and allocation are intended: not reported as errors.
    api=explicit
    [ "$name" = test_gpu_faults ] && api=no
    # The interop test's cmocka tests one process each: run as one program under memcheck, a
    # test's GL surfaces after an earlier test's have come out wrong (not so without it).
    cases=""
    [ "$name" = test_gpu_interop ] &&
        cases=$(sed -n 's/.*cmocka_unit_test(\(test_[a-z0-9_]*\)).*/\1/p' "$here/test_gpu_interop.c")
    for c in ${cases:-all}; do
        log="$out/memcheck_$name.txt"
        [ "$c" = all ] || log="$out/memcheck_${name}_$c.txt"
        if [ "$c" = all ]; then
            "$san" --tool memcheck --report-api-errors "$api" --error-exitcode 1 "$t" > "$log" 2>&1
        else
            "$san" --tool memcheck --report-api-errors "$api" --error-exitcode 1 "$t" "$c" > "$log" 2>&1
        fi
        code=$?
        [ "$code" = 77 ] && code="77 (no device)"
        say "memcheck $name${cases:+ $c}: exit $code ($(grep -Eo 'ERROR SUMMARY: [0-9]+ errors?' "$log" | tail -1))"
    done
done
"$san" --tool racecheck --error-exitcode 1 "$build/tests/test_gpu_match" test_wave_rounds_identical \
    > "$out/racecheck.txt" 2>&1
say "racecheck test_gpu_match test_wave_rounds_identical: exit $? ($(grep -Eo 'RACECHECK SUMMARY: [0-9]+ hazards? displayed' "$out/racecheck.txt" | tail -1))"
unset SR_TEST_UNDER_SANITIZER
ctest --test-dir "$build" -R '^test_gpu_faults$' -V > "$out/ctest_gpu_faults.txt" 2>&1
say "fault tests: exit $? ($(grep -Eo '[0-9]+% tests passed.*' "$out/ctest_gpu_faults.txt" | tail -1))"

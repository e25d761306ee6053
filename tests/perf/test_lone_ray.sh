#!/usr/bin/env bash
# tests/perf/test_lone_ray.sh BUILD_DIR: lone_ray.sh run small on whatever backend the build
# has (CPU on a machine without a GPU), to catch it misreading bench's tables: it must find the
# mesh's 8-segment rays, print a whole-number cost for each under both masks, and a summary
# with the frame it compares against. Its timings are not judged.
set -euo pipefail
build=${1:?usage: test_lone_ray.sh BUILD_DIR}
here=$(cd "$(dirname "$0")" && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "test_lone_ray: $*" >&2; exit 1; }

# No arguments: the usage, and a failure.
if bash "$here/lone_ray.sh" > "$out/usage.txt" 2>&1; then fail "ran without arguments"; fi
grep -q 'usage: lone_ray.sh BUILD_DIR OUT_DIR' "$out/usage.txt" || fail "no usage line: $(cat "$out/usage.txt")"

LONE_RAY_FRAMES=2 LONE_RAY_FULL=64x36 bash "$here/lone_ray.sh" "$build" "$out/run" > "$out/stdout.txt" \
    || fail "lone_ray.sh failed: $(cat "$out/stdout.txt")"
points=$(wc -l < "$out/run/points.txt")
[ "$points" -ge 10 ] || fail "found $points rays with 8-segment paths, expected the mesh's 17"
rows=$(grep -cE '^-?[0-9.]+,-?[0-9.]+ +-?[0-9]+ +-?[0-9]+$' "$out/stdout.txt" || true)
[ "$rows" -eq "$points" ] || fail "$rows cost rows for $points rays: $(cat "$out/stdout.txt")"
grep -qE "^$points rays; a lone ray's second bounce \(wave\): min -?[0-9]+, median -?[0-9]+, max -?[0-9]+ us$" \
    "$out/stdout.txt" || fail "no summary line: $(cat "$out/stdout.txt")"
grep -qE '^the 64x36 depth-1 frame: [0-9]+\.[0-9]{3} ms; 5 % of it: [0-9]+\.[0-9] us$' "$out/stdout.txt" \
    || fail "no full-frame line: $(cat "$out/stdout.txt")"
grep -qE '^the 64x36 depth-1 frame: 0\.000 ms' "$out/stdout.txt" && fail "the full frame read as 0 ms"
echo "test_lone_ray: $points rays, all lines read"

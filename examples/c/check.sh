#!/usr/bin/env bash
# examples/c/check.sh [BUILD]: install BUILD (default: build) to a temporary prefix, build
# minimal.c against it with pkg-config (shared and static) and with CMake (find_package), run
# each on scenes/cornell.json and check that each PNG is the same 160 x 90 image. CI runs it
# after the test command.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
pcdir=$(dirname "$(find "$tmp/prefix" -name stencilray.pc | head -n 1)")
libdir=$(dirname "$pcdir")
check_png() {   # PNG signature, then IHDR's width and height (big-endian) at bytes 16..23
    local size
    size=$(od -An -tx1 -j16 -N8 "$1" | tr -d ' \n')
    [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] && [ "$size" = 000000a00000005a ] ||
        { echo "examples/c/check.sh: $1 is not a 160 x 90 PNG" >&2; exit 1; }
}
# pkg-config
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/minimal-pc" examples/c/minimal.c \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --cflags --libs stencilray)
LD_LIBRARY_PATH="$libdir" "$tmp/minimal-pc" scenes/cornell.json "$tmp/pc.png"
check_png "$tmp/pc.png"
# pkg-config --static: libstencilray.a and what it needs
cc -std=c11 -Wall -Wextra -Werror -o "$tmp/minimal-static" examples/c/minimal.c "$libdir/libstencilray.a" \
    $(PKG_CONFIG_PATH="$pcdir" pkg-config --static --cflags --libs stencilray | sed 's/ -lstencilray / /')
"$tmp/minimal-static" scenes/cornell.json "$tmp/static.png"
cmp "$tmp/pc.png" "$tmp/static.png"
# CMake: find_package(stencilray); the imported target carries the library's path
cmake -S examples/c -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/minimal" scenes/cornell.json "$tmp/cmake.png"
check_png "$tmp/cmake.png"
cmp "$tmp/pc.png" "$tmp/cmake.png"
echo "examples/c/check.sh: minimal.c built with pkg-config (shared and static) and with CMake; each wrote the same 160 x 90 PNG"

#!/usr/bin/env bash
# python/check.sh [BUILD [PYTEST ARGS]]: the Python module as a user installs it, against the library BUILD
# (default: build) holds, so that nothing is compiled again but the extension: BUILD installed to
# a temporary prefix, a fresh virtual environment, pip install ./python with
# SR_PYTHON_LIBRARY=installed, python/tests under pytest (compared with BUILD/stencilray), and
# examples/python/turntable.py for 3 small frames on the CPU. CI runs it after the test command.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true   # the rest goes to pytest (--gpu: the CUDA tests too)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
start=$SECONDS
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --disable-pip-version-check scikit-build-core numpy pytest 'openexr>=3.3'
CMAKE_PREFIX_PATH="$tmp/prefix" "$tmp/venv/bin/pip" install -q --disable-pip-version-check --no-build-isolation \
    --config-settings=cmake.define.SR_PYTHON_LIBRARY=installed ./python
installed=$SECONDS
"$tmp/venv/bin/pytest" -q -p no:cacheprovider python/tests --stencilray-cli "$build/stencilray" "$@"
"$tmp/venv/bin/python" examples/python/turntable.py "$tmp/frames" --frames 3 --width 64 --height 36 --spp 1 --device cpu >/dev/null
for i in 0 1 2; do
    [ "$(head -c 8 "$tmp/frames/turntable_000$i.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
        { echo "python/check.sh: turntable.py wrote no PNG turntable_000$i.png" >&2; exit 1; }
done
cmp -s "$tmp/frames/turntable_0000.png" "$tmp/frames/turntable_0001.png" &&
    { echo "python/check.sh: turntable.py's frames 0 and 1 are the same image; expected the camera to turn" >&2; exit 1; }
echo "python/check.sh: the module installed in $((installed - start)) s; its tests and turntable.py (3 frames) ran in $((SECONDS - installed)) s"

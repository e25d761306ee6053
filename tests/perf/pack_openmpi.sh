#!/usr/bin/env bash
# tests/perf/pack_openmpi.sh: carry this machine's Open MPI (Debian 12's 4.1.4: mpirun, its
# plugins, help files and every library they load) to a GPU machine that lacks one, beside
# what ../shared/gpu/bundle.sh packs. Not needed where the GPU machine has its own Open MPI 4.1
# (the multi-GPU machines had 4.1.6, ABI-compatible: check with `command -v mpirun` there);
# bundle.sh then leaves the MPI libraries out on purpose, and the machine's mpirun is used.
#
#   bash tests/perf/pack_openmpi.sh            # writes .gpu/openmpi/ (about 30 MB)
#   # there:  source .gpu/openmpi/env.sh && mpirun --allow-run-as-root -np 2 ...
#
# env.sh relocates the copy with Open MPI's own OPAL_* variables (OPAL_PREFIX and the
# directories Debian splits out) and puts its bin/ and lib/ first on PATH and the loader path.
set -euo pipefail
src=/usr/lib/x86_64-linux-gnu/openmpi
[ -d "$src/lib/openmpi3" ] || { echo "pack_openmpi.sh: no Open MPI here ($src/lib/openmpi3); apt-get install -y libopenmpi-dev openmpi-bin" >&2; exit 2; }
out=.gpu/openmpi
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib/openmpi3" "$out/share/openmpi" "$out/etc"
cp -L /usr/bin/orterun "$out/bin/mpirun"
cp -L /usr/bin/orted "$out/bin/orted"
cp -L "$src"/lib/openmpi3/*.so "$out/lib/openmpi3/"
cp -L /usr/share/openmpi/* "$out/share/openmpi/" 2>/dev/null || true
cp -L /etc/openmpi/* "$out/etc/"
# Every library mpirun, orted and the plugins load, but the C library's own and the driver's.
skip='^(libc|libm|libdl|libpthread|librt|libresolv|ld-linux-x86-64|libgcc_s|libcuda|libnvidia-.*)\.so'
for f in "$out/bin/mpirun" "$out/bin/orted" "$out"/lib/openmpi3/*.so; do
  ldd "$f" 2>/dev/null | awk '/=> \//{print $3}'
done | sort -u | while read -r lib; do
  base=$(basename "$lib")
  [[ "$base" =~ $skip ]] && continue
  [ -e "$out/lib/$base" ] || cp -L "$lib" "$out/lib/$base"
done
cat > "$out/env.sh" <<'ENV'
# source this: Open MPI from the folder it lies in (pack_openmpi.sh).
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export OPAL_PREFIX="$here" OPAL_EXEC_PREFIX="$here" OPAL_BINDIR="$here/bin" OPAL_LIBDIR="$here/lib"
export OPAL_PKGLIBDIR="$here/lib/openmpi3" OPAL_DATADIR="$here/share" OPAL_PKGDATADIR="$here/share/openmpi"
export OPAL_SYSCONFDIR="$here/etc"
export OMPI_MCA_mca_base_component_path="$here/lib/openmpi3"
export PATH="$here/bin:$PATH" LD_LIBRARY_PATH="$here/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ENV
echo "pack_openmpi.sh: $(ls "$out/lib" | wc -l) libraries, $(ls "$out/lib/openmpi3" | wc -l) plugins, $(du -sh "$out" | cut -f1) in $out/"

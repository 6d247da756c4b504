#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The installed files alone, as a user gets them (CTest: install_consumers, label cpu):
#   run.sh BUILD_DIR SOURCE_DIR CC CMAKE
# installs the already-built tree into a temporary prefix, moves the prefix (everything must
# be relocatable), then builds and runs, against that prefix only:
#   - a pkg-config consumer, shared (miniblas) and static (miniblas_static);
#   - a CMake consumer (find_package(miniblas): miniblas::miniblas, ::miniblas_static, ::cblas);
#   - a plain cblas.h program linked against libminiblas_cblas alone, and an OpenBLAS build of
#     it run with LD_PRELOAD=<prefix>/lib/libminiblas_cblas.so;
# with no LD_LIBRARY_PATH. Each must give correct results (on the CPU path without a GPU;
# the native programs then accept miniblas_create's CUDA status). Also checks that each
# installed library exports only its API (exports.sh) and finds its neighbours ($ORIGIN).
set -eu
build=$1 src=$2 cc=${3:-cc} cmake=${4:-cmake}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/miniblas-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
unset LD_LIBRARY_PATH LD_PRELOAD PKG_CONFIG_PATH CMAKE_PREFIX_PATH || true
fail() { echo "FAIL: $*"; exit 1; }

"$cmake" --install "$build" --prefix "$tmp/first" >"$tmp/install.log" 2>&1 ||
  { cat "$tmp/install.log"; fail "cmake --install"; }
mv "$tmp/first" "$tmp/p" # a moved prefix must still work
P=$tmp/p
libdir=$(cd "$P" && ls -d lib*/pkgconfig | head -n 1 | xargs dirname)
L=$P/$libdir
for f in include/miniblas.h include/miniblas_version.h include/miniblas_cblas.h \
         "$libdir/libminiblas.a" "$libdir/cmake/miniblas/miniblasConfig.cmake" \
         "$libdir/cmake/miniblas/miniblasConfigVersion.cmake" \
         "$libdir/pkgconfig/miniblas.pc" "$libdir/pkgconfig/miniblas_static.pc" \
         "$libdir/pkgconfig/miniblas_cblas.pc" share/doc/miniblas/LICENSE \
         share/doc/miniblas/README.md; do
  [ -e "$P/$f" ] || fail "not installed: $f"
done
ls "$L"/libminiblas.so.* "$L"/libminiblas_cblas.so.* >/dev/null || fail "shared libraries missing"
for b in miniblas-bench miniblas-cblas-bench; do
  [ -x "$P/bin/$b" ] || echo "note: $b not installed (not built)"
done
echo "installed: $(cd "$P" && find . -type f | wc -l) files"

# exports and RUNPATH of the installed libraries
sh "$here/exports.sh" "$L/libminiblas.so" "$L/libminiblas_cblas.so" || fail "exports"
for lib in "$L/libminiblas.so" "$L/libminiblas_cblas.so"; do
  readelf -d "$lib" | grep -E 'RUNPATH|RPATH' | grep -q '\$ORIGIN' || fail "no \$ORIGIN RUNPATH in $lib"
done

# pkg-config consumers
export PKG_CONFIG_PATH=$L/pkgconfig
pkg-config --exists miniblas miniblas_static miniblas_cblas || fail "pkg-config files"
pkg-config --variable=prefix miniblas | grep -q "$P\|pcfiledir" ||
  [ "$(cd "$(pkg-config --variable=prefix miniblas)" && pwd)" = "$(cd "$P" && pwd)" ] ||
  fail "pkg-config prefix is not the moved prefix: $(pkg-config --variable=prefix miniblas)"
# shellcheck disable=SC2046
"$cc" -o "$tmp/pc_shared" "$here/consumer.c" $(pkg-config --cflags --libs miniblas) -lm ||
  fail "pkg-config shared build"
# shellcheck disable=SC2046
"$cc" -o "$tmp/pc_static" "$here/consumer.c" $(pkg-config --cflags --libs --static miniblas_static) -lm ||
  fail "pkg-config static build"
if ldd "$tmp/pc_static" | grep -q libminiblas; then fail "static consumer needs a shared libminiblas"; fi
used=$(ldd "$tmp/pc_shared" | awk '/libminiblas\.so/ {print $3}')
[ -n "$used" ] && [ "$(readlink -f "$used")" = "$(readlink -f "$L"/libminiblas.so.?)" ] ||
  fail "shared consumer does not use $L (uses '$used')"
echo "== pkg-config, shared"; "$tmp/pc_shared" || fail "pkg-config shared consumer"
echo "== pkg-config, static"; "$tmp/pc_static" || fail "pkg-config static consumer"

# the plain cblas.h program: relinked against libminiblas_cblas alone, and preloaded
cblas_cflags=$(pkg-config --cflags openblas 2>/dev/null || true)
cblas_libs=$(pkg-config --libs openblas 2>/dev/null || echo -lopenblas)
# shellcheck disable=SC2086,SC2046
"$cc" -o "$tmp/cblas_relinked" "$here/cblas_prog.c" $cblas_cflags \
  $(pkg-config --cflags --libs miniblas_cblas) -lm -ldl || fail "relinked cblas build"
if ldd "$tmp/cblas_relinked" | grep -q openblas; then fail "relinked program links OpenBLAS"; fi
# shellcheck disable=SC2086
"$cc" -o "$tmp/cblas_openblas" "$here/cblas_prog.c" $cblas_cflags $cblas_libs -lm -ldl ||
  fail "OpenBLAS cblas build"
echo "== cblas program relinked against libminiblas_cblas"
MINIBLAS_EXPECTED=1 "$tmp/cblas_relinked" || fail "relinked cblas program"
echo "== cblas program (OpenBLAS build) with LD_PRELOAD=$L/libminiblas_cblas.so"
LD_PRELOAD=$L/libminiblas_cblas.so MINIBLAS_EXPECTED=1 "$tmp/cblas_openblas" ||
  fail "preloaded cblas program"
echo "== the same OpenBLAS build without the preload"
"$tmp/cblas_openblas" || fail "OpenBLAS cblas program"

# the CMake consumer
cb_inc=$(echo "$cblas_cflags" | sed -n 's/^-I\([^ ]*\).*/\1/p')
"$cmake" -S "$here/consumer" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$P" -DCMAKE_C_COMPILER="$cc" \
  -DCMAKE_BUILD_TYPE=Release -DCBLAS_INCLUDE_DIR="$cb_inc" >"$tmp/cm.log" 2>&1 ||
  { cat "$tmp/cm.log"; fail "CMake consumer configure"; }
"$cmake" --build "$tmp/cm" >"$tmp/cmb.log" 2>&1 || { cat "$tmp/cmb.log"; fail "CMake consumer build"; }
grep -q "$P" "$tmp/cm/CMakeCache.txt" || fail "CMake consumer did not find the moved prefix"
echo "== CMake consumer, miniblas::miniblas"; "$tmp/cm/consumer_shared" || fail "CMake shared"
echo "== CMake consumer, miniblas::miniblas_static"; "$tmp/cm/consumer_static" || fail "CMake static"
if ldd "$tmp/cm/consumer_static" | grep -q libminiblas; then fail "miniblas::miniblas_static links a shared libminiblas"; fi
echo "== CMake consumer, miniblas::cblas"
MINIBLAS_EXPECTED=1 "$tmp/cm/cblas_relinked" || fail "CMake cblas"
echo "install test: all passed"

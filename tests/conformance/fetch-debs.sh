#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Unpack the reference test programs that tests/conformance.cmake runs into DEST, for a machine
# that cannot install them (no network, not Debian): run it on a Debian 12 machine with apt,
# carry DEST over, and configure there with MINIBLAS_CONFORMANCE_ROOT=DEST (cache variable or
# environment). Only the programs and inputs the tests use are kept (about 2.5 MB); libtmglib.so.3
# comes along for xlintst?. Their BLAS and LAPACK are OpenBLAS (tests/conformance/run.sh links
# libblas.so.3 and liblapack.so.3 to it), and libgfortran.so.5 comes with OpenBLAS.
#   tests/conformance/fetch-debs.sh DEST
set -euo pipefail
dest=${1:?usage: fetch-debs.sh DEST}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd "$tmp" && apt-get download libblas-test liblapack-test libtmglib3 >/dev/null)
mkdir -p "$tmp/x"
for d in "$tmp"/*.deb; do dpkg -x "$d" "$tmp/x"; done
ma=$(basename "$(dirname "$(ls -d "$tmp"/x/usr/lib/*/blas)")")
keep_blas="xblat1s xblat1d xblat3s xblat3d xscblat1 xdcblat1 xscblat3 xdcblat3 sblat3.in dblat3.in sin3 din3"
keep_lapack="xlintsts xlintstd stest.in dtest.in"
rm -rf "$dest/usr/lib/$ma"
mkdir -p "$dest/usr/lib/$ma/blas" "$dest/usr/lib/$ma/lapack"
for f in $keep_blas; do cp -p "$tmp/x/usr/lib/$ma/blas/$f" "$dest/usr/lib/$ma/blas/"; done
for f in $keep_lapack; do cp -p "$tmp/x/usr/lib/$ma/lapack/$f" "$dest/usr/lib/$ma/lapack/"; done
cp -P "$tmp"/x/usr/lib/"$ma"/libtmglib.so.3* "$dest/usr/lib/$ma/"
du -sh "$dest"

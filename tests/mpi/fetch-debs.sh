#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Unpack Open MPI and ScaLAPACK (Debian 12: openmpi-bin, libopenmpi-dev, libscalapack-openmpi-dev
# and the libraries they load) into DEST, for a machine that cannot install them (no network):
# run it on a Debian 12 machine with apt, carry DEST over, and point the build and the test at it
# with MINIBLAS_MPI_ROOT=DEST (environment, or the CMake cache variable of tests/mpi.cmake).
# tests/mpi/run.sh then sets PATH, LD_LIBRARY_PATH and OPAL_PREFIX=DEST/usr for the relocated
# Open MPI.
#
# Kept: what compiles and runs a C MPI program with ScaLAPACK on one host (mpicc, mpirun, orted,
# the MPI libraries and their plugins for shared memory and TCP, PMIx, hwloc, libevent,
# libgfortran for ScaLAPACK). Left out: documentation, Fortran, C++, Java and OpenSHMEM bindings,
# Open MPI's internal headers, and the network-fabric plugins (UCX, libfabric, verbs, PSM) with
# their libraries: run.sh selects the shared-memory transport, as one host needs. The BLAS and
# LAPACK under ScaLAPACK (libblas.so.3, liblapack.so.3) are OpenBLAS, linked in by run.sh and
# the build. The base system must provide libc, libm, libz, libgcc_s (the script lists every
# library the kept files need that DEST lacks).
#   tests/mpi/fetch-debs.sh DEST
set -euo pipefail
dest=${1:?usage: fetch-debs.sh DEST}
pkgs="libscalapack-openmpi2.2 libscalapack-openmpi-dev libopenmpi3 libopenmpi-dev openmpi-bin
      openmpi-common libpmix2 libhwloc15 libevent-core-2.1-7 libevent-pthreads-2.1-7 libmunge2
      libltdl7 libudev1 libnl-3-200 libnl-route-3-200 libgfortran5 libquadmath0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
(cd "$tmp" && apt-get download $pkgs >/dev/null)
x=$tmp/x
mkdir -p "$x"
for d in "$tmp"/*.deb; do dpkg -x "$d" "$x"; done
ma=$(basename "$(dirname "$(ls -d "$x"/usr/lib/*/openmpi)")")
lib=$x/usr/lib/$ma
# ---- prune
rm -rf "$x"/usr/share/doc "$x"/usr/share/man "$x"/usr/share/lintian "$x"/usr/share/gdb \
  "$x"/usr/share/gcc "$x"/usr/lib/"$ma"/fortran "${x:?}"/etc "$x"/lib/systemd "$x"/usr/lib/cmake
rm -f "$lib"/libmpi_mpifh* "$lib"/libmpi_usempi* "$lib"/libmpi_java* "$lib"/libmpi_cxx* \
  "$lib"/liboshmem* "$lib"/libmca_common_ucx* "$lib"/libmca_common_ofi* "$lib"/libmca_common_verbs* \
  "$lib"/libompitrace* "$lib"/libmca_common_monitoring* "$lib"/*.a
find "$lib"/openmpi/lib -maxdepth 1 \( -name 'libmpi_mpifh*' -o -name 'libmpi_usempi*' -o \
  -name 'libmpi_java*' -o -name 'libmpi_cxx*' -o -name 'liboshmem*' -o -name 'libompitrace*' -o \
  -name 'libmca_common_ucx*' -o -name 'libmca_common_ofi*' -o -name 'libmca_common_verbs*' -o \
  -name 'libmca_common_monitoring*' -o -name 'ompi_monitoring_prof.so' \) -delete
plug=$lib/openmpi/lib/openmpi3
# OpenSHMEM frameworks (atomic, memheap, scoll, spml, sshmem), fabrics, Java, monitoring
rm -f "$plug"/mca_atomic_* "$plug"/mca_memheap_* "$plug"/mca_scoll_* "$plug"/mca_spml_* \
  "$plug"/mca_sshmem_* "$plug"/*_ucx.so "$plug"/*_ofi.so "$plug"/mca_btl_openib.so \
  "$plug"/mca_mtl_psm*.so "$plug"/*monitoring*.so "$plug"/mca_btl_usnic.so "$plug"/mca_fs_*.so \
  "$plug"/mca_fbtl_*.so "$plug"/mca_io_*.so "$plug"/mca_sharedfp_*.so "$plug"/mca_fcoll_*.so
# headers: the public C ones (mpi.h, mpi-ext.h and what they include) only
inc=$lib/openmpi/include
find "$inc" -maxdepth 1 -name 'mpif*' -delete
rm -rf "$inc"/mpp "$inc"/openshmem "$inc"/*shmem*
find "$inc"/openmpi -mindepth 1 -maxdepth 1 ! -name mpiext -exec rm -rf {} +
find "$inc"/openmpi/mpiext -name '*mpifh*' -delete 2>/dev/null || true
find "$x"/usr/share/openmpi -name '*wrapper-data.txt' ! -name 'mpicc*' -delete
rm -f "$x"/usr/share/openmpi/openmpi-valgrind.supp
find "$x"/usr/bin -mindepth 1 ! \( -name 'mpicc.openmpi' -o -name 'mpirun.openmpi' -o \
  -name 'mpiexec.openmpi' -o -name 'orterun' -o -name 'orted' -o -name 'opal_wrapper' -o \
  -name 'ompi_info' \) -delete
# what update-alternatives would make: mpicc, mpirun, mpiexec, and libmpi.so / mpi.h links
ln -sf mpicc.openmpi "$x"/usr/bin/mpicc
ln -sf mpirun.openmpi "$x"/usr/bin/mpirun
ln -sf mpiexec.openmpi "$x"/usr/bin/mpiexec
# ---- every library a kept file needs that the tree lacks (the base system must have these)
missing=$(find "$x" -type f \( -name '*.so*' -o -perm -u+x \) -print0 |
  xargs -0 readelf -d 2>/dev/null | sed -n 's/.*NEEDED.*\[\(.*\)\]/\1/p' | sort -u |
  while read -r so; do [ -e "$lib/$so" ] || [ -e "$x/lib/$ma/$so" ] || printf '%s ' "$so"; done)
echo "needed from the base system (or OpenBLAS for libblas.so.3 / liblapack.so.3): $missing"
glibc=$(find "$x" -type f \( -name '*.so*' -o -perm -u+x \) -print0 | xargs -0 objdump -T 2>/dev/null |
  grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -n1)
echo "newest C library version needed: $glibc (ldd --version on the target must show at least that)"
rm -rf "$dest"
mkdir -p "$dest"
cp -a "$x"/. "$dest"/
du -sh "$dest"

# SPDX-License-Identifier: BSD-3-Clause
# Read by cpack for each generator: the .deb installs under /usr, the .tar.gz holds the
# install tree itself (bin/, include/, lib/, share/), to unpack anywhere.
if(CPACK_GENERATOR STREQUAL "TGZ")
  set(CPACK_PACKAGING_INSTALL_PREFIX "")
else()
  set(CPACK_PACKAGING_INSTALL_PREFIX "/usr")
endif()

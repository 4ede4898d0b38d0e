# SPDX-License-Identifier: Apache-2.0
# Installation extras and the Debian package: the man page generated at build time from the
# binary's own --help (manpage.cmake), and CPack's DEB generator. Build a package from any build
# tree with
#   cmake --build build && (cd build && cpack -G DEB)
# The package installs under /usr whatever the build's CMAKE_INSTALL_PREFIX: the binary finds its
# suites in the share directory beside it (runner/specs/suite.hpp installed_data_dir), so one build
# serves `cmake --install --prefix ...` and the package alike.
set(STORQUAL_MANPAGE ${CMAKE_BINARY_DIR}/storqual.1)
add_custom_command(
  OUTPUT ${STORQUAL_MANPAGE}
  COMMAND ${CMAKE_COMMAND} -DSTORQUAL=$<TARGET_FILE:storqual> -DOUT=${STORQUAL_MANPAGE}
          -P ${CMAKE_CURRENT_LIST_DIR}/manpage.cmake
  DEPENDS storqual ${CMAKE_CURRENT_LIST_DIR}/manpage.cmake
  COMMENT "Generating storqual.1 from storqual --help")
add_custom_target(storqual_manpage ALL DEPENDS ${STORQUAL_MANPAGE})
install(FILES ${STORQUAL_MANPAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}
        FILES_MATCHING PATTERN "*.md" PATTERN "recipes/*")

set(CPACK_PACKAGE_NAME storqual)
set(CPACK_PACKAGE_VENDOR "storqual")
set(CPACK_PACKAGE_CONTACT "storqual maintainers <storqual@localhost>")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "storage hardware qualification against spec sheets")
set(CPACK_PACKAGE_DESCRIPTION
    "storqual identifies a storage device, runs the standard suite of its spec sheet with its own I/O engines (io_uring, libaio, psync) and writes JUnit XML, a self-contained HTML report and a JSON result comparing each vendor claim with the measurement.")
set(CPACK_STRIP_FILES ON)  # the package carries no debug info
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)  # a Debian package lives in /usr
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # storqual_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Depends from the binary's NEEDED libraries, as dpkg-shlibdeps finds them (liburing2, libaio1,
# libnvme1, libboost-program-options1.74.0, libpugixml1v5, libblkid1, libmount1, libudev1,
# libxxhash0, libssl3, libc6, libstdc++6, libgcc-s1 on Debian 12).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "fio, chromium")
include(CPack)

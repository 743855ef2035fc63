# SPDX-License-Identifier: Apache-2.0
# Run at install time (install(CODE), CMakeLists.txt): installs a copy of SRC
# into DIR in which /usr/bin/gpudoctor, the path the Debian package installs
# to, is the binary of this install's prefix (CMAKE_INSTALL_PREFIX as
# `cmake --install --prefix` or `make install PREFIX=` set it): the NHC line
# and node-problem-detector's config then run the gpudoctor installed with
# them. STAGE is a folder of the build tree for the rewritten copy.
function(gd_install_prefixed src dir bindir stage)
  if(IS_ABSOLUTE "${bindir}")
    set(bin "${bindir}/gpudoctor")
  else()
    set(bin "${CMAKE_INSTALL_PREFIX}/${bindir}/gpudoctor")
  endif()
  if(NOT IS_ABSOLUTE "${dir}")
    set(dir "${CMAKE_INSTALL_PREFIX}/${dir}")
  endif()
  get_filename_component(name "${src}" NAME)
  file(READ "${src}" text)
  string(REPLACE "/usr/bin/gpudoctor" "${bin}" text "${text}")
  file(MAKE_DIRECTORY "${stage}")
  file(WRITE "${stage}/${name}" "${text}")
  # file(INSTALL) adds DESTDIR, says "Installing:" and lists the file in
  # install_manifest.txt, as install(FILES) would.
  file(INSTALL DESTINATION "${dir}" TYPE FILE PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ
       FILES "${stage}/${name}")
  set(CMAKE_INSTALL_MANIFEST_FILES "${CMAKE_INSTALL_MANIFEST_FILES}" PARENT_SCOPE)
endfunction()

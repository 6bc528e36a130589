# Read by cpack before each generator runs. Without dpkg-shlibdeps CPackDeb still makes a .deb,
# but one that declares no Depends and installs without the libraries sortie needs: refuse.
if(CPACK_GENERATOR STREQUAL "DEB")
  find_program(SORTIE_DPKG_SHLIBDEPS dpkg-shlibdeps)
  if(NOT SORTIE_DPKG_SHLIBDEPS)
    message(FATAL_ERROR "dpkg-shlibdeps is missing, so the .deb would declare no Depends; "
                        "install dpkg-dev (packaging/deps.sh does)")
  endif()
endif()

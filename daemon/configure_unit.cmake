# Writes perfsaged.service from perfsaged.service.in at install time, with the paths under the
# prefix being installed to (CMAKE_INSTALL_PREFIX here is `cmake --install --prefix`'s).
# Set by daemon/CMakeLists.txt: PERFSAGE_BINDIR, PERFSAGE_DOCDIR (relative to the prefix, or
# absolute), PERFSAGE_UNIT_TEMPLATE, PERFSAGE_UNIT.
foreach(dir BINDIR DOCDIR)
  if(IS_ABSOLUTE "${PERFSAGE_${dir}}")
    set(full_${dir} "${PERFSAGE_${dir}}")
  else()
    set(full_${dir} "${CMAKE_INSTALL_PREFIX}/${PERFSAGE_${dir}}")
  endif()
endforeach()
set(PERFSAGE_DAEMON_BINARY "${full_BINDIR}/perfsaged")
set(PERFSAGE_DAEMON_DOC "${full_DOCDIR}/docs/daemon.md")
set(PERFSAGE_EXAMPLE_CONFIG "${full_DOCDIR}/examples/perfsaged.yaml")
configure_file("${PERFSAGE_UNIT_TEMPLATE}" "${PERFSAGE_UNIT}" @ONLY)

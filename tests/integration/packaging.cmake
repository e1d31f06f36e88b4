# What `cmake --install` delivers besides the binaries: the systemd unit, the example config,
# the man pages and bash completion. Shell scripts, run against the build; label `install`.
add_test(NAME installed_service COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/installed_service_test.sh
  ${CMAKE_BINARY_DIR} ${CMAKE_BINARY_DIR}/installed_service_test)
add_test(NAME man_pages COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/install/man_pages_test.sh
  ${CMAKE_BINARY_DIR} ${CMAKE_SOURCE_DIR})
add_test(NAME completion_plain COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/completion/completion_test.sh
  ${CMAKE_BINARY_DIR}/bin ${CMAKE_SOURCE_DIR}/cli/completion/perfsage.bash plain)
add_test(NAME completion_bash_completion
  COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/completion/completion_test.sh
  ${CMAKE_BINARY_DIR}/bin ${CMAKE_SOURCE_DIR}/cli/completion/perfsage.bash bash-completion)
set_tests_properties(installed_service man_pages completion_plain completion_bash_completion
  PROPERTIES LABELS install SKIP_RETURN_CODE 77)
set_tests_properties(install_check PROPERTIES LABELS install)

# Installs the build into a temporary prefix and runs the installed binary from elsewhere with
# no hint in the environment: it must find its packs, hardware specs and patterns under the
# prefix (not through the source tree compiled in), and analyse the bundled example.
# Run by ctest: cmake -DBUILD_DIR=... -DSOURCE_DIR=... -DWORK=... -P install_check.cmake
file(REMOVE_RECURSE ${WORK})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK}/prefix
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
foreach(f bin/perfsage share/perfsage/knowledge_bases/builtin/aicpu/pack.yaml
          share/perfsage/knowledge_bases/hardware share/perfsage/knowledge_bases/patterns
          share/bash-completion/completions/perfsage)
  if(NOT EXISTS ${WORK}/prefix/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
# A copy of the prefix elsewhere: the binary must follow its own location.
file(COPY ${WORK}/prefix DESTINATION ${WORK}/moved)
set(bin ${WORK}/moved/prefix/bin/perfsage)
execute_process(COMMAND env -u PERFSAGE_KB_PATH HOME=${WORK} ${bin} kb paths
  WORKING_DIRECTORY ${WORK} OUTPUT_VARIABLE paths RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT paths MATCHES "installed beside the executable"
   OR NOT paths MATCHES "${WORK}/moved/prefix/share/perfsage/knowledge_bases")
  message(FATAL_ERROR "the installed binary does not find its knowledge bases:\n${paths}")
endif()
execute_process(COMMAND env -u PERFSAGE_KB_PATH HOME=${WORK} ${bin} analyze
    ${SOURCE_DIR}/examples/resnet50_rank0_ascend_pt --format json
  WORKING_DIRECTORY ${WORK} OUTPUT_VARIABLE report RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT report MATCHES "\"pack\": \"aicpu\"")
  message(FATAL_ERROR "the installed binary did not analyse the example (${rc}):\n${err}")
endif()
file(REMOVE_RECURSE ${WORK})

# Writes perfsage.1 and perfsage-COMMAND.1 for each command with `perfsage --man [COMMAND]`.
# Run by the build: cmake -DPERFSAGE=... -DOUT_DIR=... -DCOMMANDS="a;b" -P write_man_pages.cmake
file(MAKE_DIRECTORY ${OUT_DIR})
foreach(command "" ${COMMANDS})
  if(command STREQUAL "")
    set(page ${OUT_DIR}/perfsage.1)
  else()
    set(page ${OUT_DIR}/perfsage-${command}.1)
  endif()
  execute_process(COMMAND ${PERFSAGE} --man ${command} OUTPUT_FILE ${page}.tmp
    RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "perfsage --man ${command} failed (${rc}): ${err}")
  endif()
  file(RENAME ${page}.tmp ${page})
endforeach()

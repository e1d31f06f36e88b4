# Dependencies point one way: cli/, daemon/ -> app/ -> actions/, engine/, analyzers/,
# collectors/ -> store/ (and proto/, a leaf). Link lines alone cannot enforce that: every
# library puts the source root on the include path and app/'s headers expose store and engine
# types, so a front end's #include "store/..." or an action's #include "collectors/..." would
# still compile. perfsage_layer_check(TARGET DIR LAYER...) therefore scans DIR's .cpp and .h
# files (recursively) before TARGET is built and fails the build on an include of a layer
# folder not among the LAYERs it may use, naming the file and the line.
#
# Run as a script (cmake -P) it does the scan: LAYER_CHECK_DIR, LAYER_CHECK_ALLOWED (layers
# joined by '|'), LAYER_CHECK_STAMP.
set(perfsage_layers store engine analyzers collectors actions app cli daemon)
if(CMAKE_SCRIPT_MODE_FILE)
  string(REPLACE "|" ";" allowed "${LAYER_CHECK_ALLOWED}")
  set(forbidden ${perfsage_layers})
  list(REMOVE_ITEM forbidden ${allowed})
  list(JOIN forbidden "|" forbidden_re)
  list(JOIN allowed ", " allowed_text)
  file(GLOB_RECURSE files "${LAYER_CHECK_DIR}/*.cpp" "${LAYER_CHECK_DIR}/*.h")
  list(SORT files)
  set(found "")
  foreach(f ${files})
    file(STRINGS "${f}" lines REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<](${forbidden_re})/")
    foreach(line ${lines})
      string(APPEND found "\n  ${f}: ${line}")
    endforeach()
  endforeach()
  if(found)
    message(FATAL_ERROR "${LAYER_CHECK_DIR} may include only ${allowed_text} (and proto): "
      "move what it needs to a layer it may use (a front end: an app/ header such as "
      "app/store_types.h or app/front_end_names.h):${found}")
  endif()
  file(TOUCH "${LAYER_CHECK_STAMP}")
  return()
endif()

set(PERFSAGE_LAYER_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_FILE} CACHE INTERNAL "")

function(perfsage_layer_check target dir)
  file(GLOB_RECURSE sources CONFIGURE_DEPENDS ${dir}/*.cpp ${dir}/*.h)
  list(JOIN ARGN "|" allowed)
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${target}_layers.stamp)
  add_custom_command(OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DLAYER_CHECK_DIR=${dir} -DLAYER_CHECK_ALLOWED=${allowed}
      -DLAYER_CHECK_STAMP=${stamp} -P ${PERFSAGE_LAYER_CHECK_SCRIPT}
    DEPENDS ${sources} ${PERFSAGE_LAYER_CHECK_SCRIPT}
    COMMENT "Checking that ${dir} includes only ${ARGN}" VERBATIM)
  add_custom_target(${target}_layers DEPENDS ${stamp})
  add_dependencies(${target} ${target}_layers)
endfunction()

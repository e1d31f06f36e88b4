# The front ends (cli/, daemon/) reach the layers below app/ only through app/'s headers.
# Link lines alone cannot enforce that: every library puts the source root on the include path
# and app/'s headers expose store and engine types, so a front end's #include "store/..."
# would still compile. perfsage_layer_check(TARGET DIR) therefore scans DIR's .cpp and .h
# files before TARGET is built and fails the build on an include of store/, engine/,
# analyzers/, collectors/ or actions/, naming the file and the line.
#
# Run as a script (cmake -P) it does the scan: LAYER_CHECK_DIR, LAYER_CHECK_STAMP.
if(CMAKE_SCRIPT_MODE_FILE)
  file(GLOB files "${LAYER_CHECK_DIR}/*.cpp" "${LAYER_CHECK_DIR}/*.h")
  list(SORT files)
  set(found "")
  foreach(f ${files})
    file(STRINGS "${f}" lines
      REGEX "^[ \t]*#[ \t]*include[ \t]*[\"<](store|engine|analyzers|collectors|actions)/")
    foreach(line ${lines})
      string(APPEND found "\n  ${f}: ${line}")
    endforeach()
  endforeach()
  if(found)
    message(FATAL_ERROR "a front end includes a layer below app/ (use or add an app/ header, "
      "e.g. app/store_types.h, app/front_end_names.h):${found}")
  endif()
  file(TOUCH "${LAYER_CHECK_STAMP}")
  return()
endif()

set(PERFSAGE_LAYER_CHECK_SCRIPT ${CMAKE_CURRENT_LIST_FILE} CACHE INTERNAL "")

function(perfsage_layer_check target dir)
  file(GLOB sources CONFIGURE_DEPENDS ${dir}/*.cpp ${dir}/*.h)
  set(stamp ${CMAKE_CURRENT_BINARY_DIR}/${target}_layers.stamp)
  add_custom_command(OUTPUT ${stamp}
    COMMAND ${CMAKE_COMMAND} -DLAYER_CHECK_DIR=${dir} -DLAYER_CHECK_STAMP=${stamp}
      -P ${PERFSAGE_LAYER_CHECK_SCRIPT}
    DEPENDS ${sources} ${PERFSAGE_LAYER_CHECK_SCRIPT}
    COMMENT "Checking that ${dir} includes no layer below app/" VERBATIM)
  add_custom_target(${target}_layers DEPENDS ${stamp})
  add_dependencies(${target} ${target}_layers)
endfunction()

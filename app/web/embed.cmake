# Embeds files into a C++ source as byte arrays, so pages and reports need no files at run time.
#   perfsage_embed(OUTPUT gen.cpp NAMESPACE perfsage::app FUNCTION report_asset FILES a.js b.css)
# defines `std::string_view NAMESPACE::FUNCTION(std::string_view file_name)` (empty when unknown).
# Run as a script (cmake -P) it writes the source; as an include it defines the function.
if(CMAKE_SCRIPT_MODE_FILE)
  set(body "// Generated from ${FILES} by app/web/embed.cmake; do not edit.\n#include <string_view>\n\nnamespace ${NAMESPACE} {\nnamespace {\n")
  set(lookup "")
  set(i 0)
  string(REPLACE "," ";" file_list "${FILES}")
  foreach(f ${file_list})
    file(READ ${f} hex HEX)
    string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
    get_filename_component(name ${f} NAME)
    string(APPEND body "constexpr unsigned char k${i}[] = {${bytes}0};\n")
    string(APPEND lookup "  if (name == \"${name}\") return {reinterpret_cast<const char*>(k${i}), sizeof(k${i}) - 1};\n")
    math(EXPR i "${i} + 1")
  endforeach()
  string(APPEND body "}  // namespace\n\nstd::string_view ${FUNCTION}(std::string_view name) {\n${lookup}  return {};\n}\n\n}  // namespace ${NAMESPACE}\n")
  file(WRITE ${OUTPUT} "${body}")
  return()
endif()

function(perfsage_embed)
  set(script ${CMAKE_CURRENT_FUNCTION_LIST_FILE})
  cmake_parse_arguments(E "" "OUTPUT;NAMESPACE;FUNCTION" "FILES" ${ARGN})
  string(REPLACE ";" "," joined "${E_FILES}")
  add_custom_command(OUTPUT ${E_OUTPUT}
    COMMAND ${CMAKE_COMMAND} -DOUTPUT=${E_OUTPUT} -DNAMESPACE=${E_NAMESPACE}
      -DFUNCTION=${E_FUNCTION} "-DFILES=${joined}" -P ${script}
    DEPENDS ${E_FILES} ${script}
    COMMENT "Embedding ${E_FUNCTION} files" VERBATIM)
endfunction()

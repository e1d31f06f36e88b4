# docs/pack-schema.json and docs/pack-tests-schema.json against every built-in and community
# pack, and deliberately wrong packs against both the schemas and `perfsage kb validate`
# (tests/schema/check_pack_schemas.py). Debian's python3 with python3-jsonschema and
# python3-yaml; the script exits 77 (skipped) without them.
find_program(PERFSAGE_SCHEMA_PYTHON python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(PERFSAGE_SCHEMA_PYTHON)
  add_test(NAME pack_schema_check
    COMMAND ${PERFSAGE_SCHEMA_PYTHON} ${CMAKE_SOURCE_DIR}/tests/schema/check_pack_schemas.py
      --perfsage $<TARGET_FILE:perfsage> --root ${CMAKE_SOURCE_DIR})
  set_tests_properties(pack_schema_check PROPERTIES SKIP_RETURN_CODE 77)
endif()

# tests for the shared mode's catalog: run extracts and their replicas (store/run_extract.h),
# publication in PostgreSQL (store/pg/pg_catalog.h, app/fleet_catalog.h)
set(PERFSAGE_TEST_LIBS perfsage_app)
perfsage_test(fleet_catalog_test unit/fleet_catalog_test.cpp)

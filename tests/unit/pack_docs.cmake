# docs/packs/<pack>.md (community packs: README.md) against the packs' rules
set(PERFSAGE_TEST_LIBS perfsage_engine)
perfsage_test(pack_docs_test unit/pack_docs_test.cpp)

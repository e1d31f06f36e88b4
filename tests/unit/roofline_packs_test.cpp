// The roofline, gpu_kernels and activation packs load cleanly and pass their own tests with
// full rule coverage (what `perfsage kb test PACK` checks), without the CLI.
#include "analyzer_resources.h"
#include "engine/kb/pack_tests.h"
#include "engine/kb/reader.h"
#include "kb_support.h"
#include "test_support.h"

using namespace perfsage;

TEST_CASE("roofline family packs pass their tests with full coverage") {
  engine::PackTestOptions options;
  options.catalog = test::catalog();
  options.analyze = [](store::Database& db, int64_t run) { test::analyze(db, run); };
  for (const char* name : {"roofline", "gpu_kernels", "activation"}) {
    INFO(name);
    std::vector<engine::LoadMessage> msgs;
    auto pack = engine::read_pack(test::source_dir() / "knowledge_bases" / "builtin" / name, msgs);
    for (const auto& m : msgs) {
      INFO(m.str());
      CHECK_FALSE(m.error());
    }
    REQUIRE(pack);
    auto report = engine::run_pack_tests(*pack, options);
    INFO(report.str());
    CHECK(report.ok());
  }
}

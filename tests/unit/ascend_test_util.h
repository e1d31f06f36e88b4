// End-to-end helpers for the Ascend collector tests: ingest paths into an in-memory store and
// query single values back.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "collectors/ingest.h"
#include "store/database.h"
#include "store/run_writer.h"
#include "test_support.h"

namespace perfsage::test {

struct Store {
  store::Database db{":memory:"};
  collectors::IngestResult result;

  // Ingests and commits; exceptions (ParseError) propagate and roll the run back.
  void ingest(const std::vector<std::filesystem::path>& paths,
              collectors::Mode mode = collectors::Mode::strict) {
    store::RunWriter w(db, {"", {}, "fp", "now"});
    result = collectors::ingest(collectors::expand_inputs(paths), w, mode);
    w.commit();
  }
  int64_t integer(const std::string& sql) {
    auto st = db.prepare(sql);
    REQUIRE(st.step());
    REQUIRE_FALSE(st.is_null(0));
    return st.int64(0);
  }
  double real(const std::string& sql) {
    auto st = db.prepare(sql);
    REQUIRE(st.step());
    REQUIRE_FALSE(st.is_null(0));
    return st.real(0);
  }
  std::string text(const std::string& sql) {
    auto st = db.prepare(sql);
    REQUIRE(st.step());
    return st.is_null(0) ? std::string("<null>") : st.text(0);
  }
};

inline std::filesystem::path ascend_sample(const std::string& name) {
  return samples_dir() / "ascend" / name;
}

}  // namespace perfsage::test

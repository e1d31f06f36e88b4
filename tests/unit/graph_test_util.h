// Helpers for the graph collector tests: ingest files into an in-memory store and query it.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "collectors/ingest.h"
#include "store/database.h"
#include "store/run_writer.h"
#include "test_support.h"

namespace perfsage::test {

struct Ingested {
  store::Database db{":memory:"};
  int64_t run_id = 0;
  collectors::IngestResult result;
};

// Ingests `paths` (named inputs) into a fresh in-memory store and commits the run.
inline void ingest_into(Ingested& out, const std::vector<std::filesystem::path>& paths,
                        collectors::Mode mode = collectors::Mode::strict) {
  store::RunWriter w(out.db, {"job", {}, "fp", "2026-01-01T00:00:00Z"});
  out.run_id = w.run_id();
  out.result = collectors::ingest(collectors::expand_inputs(paths), w, mode);
  w.commit();
}

inline int64_t count(store::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  REQUIRE(st.step());
  return st.int64(0);
}

// The first column of the first row as text ("<null>" for NULL, "<none>" for no row).
inline std::string text(store::Database& db, const std::string& sql) {
  auto st = db.prepare(sql);
  if (!st.step()) return "<none>";
  return st.is_null(0) ? "<null>" : st.text(0);
}

inline std::string all_warnings(const collectors::IngestResult& r) {
  std::string s;
  for (const auto& f : r.files) {
    for (const auto& w : f.warnings) s += w + "\n";
  }
  return s;
}

}  // namespace perfsage::test

// Helpers for the Kineto collector tests: ingest one file into an in-memory store and query it.
#pragma once

#include <zlib.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "collectors/common/collector.h"
#include "collectors/ingest.h"
#include "collectors/kineto/kineto_collector.h"
#include "store/database.h"
#include "store/run_writer.h"
#include "test_support.h"

namespace perfsage::test {

struct Ingested {
  std::unique_ptr<store::Database> db;
  int64_t run = 0;
  collectors::RunHints hints;
  std::vector<std::string> report;
  int64_t records = 0, skipped = 0;

  int64_t count(const std::string& sql) const {
    auto st = db->prepare(sql);
    st.bind(1, run);
    REQUIRE(st.step());
    return st.int64(0);
  }
  std::string text(const std::string& sql) const {
    auto st = db->prepare(sql);
    st.bind(1, run);
    REQUIRE(st.step());
    return st.is_null(0) ? std::string("<null>") : st.text(0);
  }
  bool report_mentions(const std::string& what) const {
    for (const auto& l : report)
      if (l.find(what) != std::string::npos) return true;
    return false;
  }
};

inline Ingested kineto_ingest(const std::filesystem::path& path,
                              collectors::Mode mode = collectors::Mode::lenient,
                              collectors::kineto::KinetoOptions options = {}) {
  Ingested r;
  r.db = std::make_unique<store::Database>(":memory:");
  store::RunWriter w(*r.db, store::RunHeader{"job", {path.string()}, "fp", "2024-01-01T00:00:00Z"});
  r.run = w.run_id();
  collectors::CollectContext ctx(w, mode, path.string(), r.hints);
  collectors::kineto::KinetoCollector c(options);
  c.collect(collectors::probe_file(path), ctx);
  w.commit();
  r.report = ctx.report_lines();
  r.records = ctx.records();
  r.skipped = ctx.skipped();
  return r;
}

// Writes `content` gzip-compressed.
inline std::filesystem::path write_gz(const TempDir& dir, const std::string& name,
                                      const std::string& content) {
  auto p = dir.path() / name;
  gzFile f = gzopen(p.c_str(), "wb");
  REQUIRE(f != nullptr);
  REQUIRE(gzwrite(f, content.data(), static_cast<unsigned>(content.size())) ==
          static_cast<int>(content.size()));
  gzclose(f);
  return p;
}

inline std::filesystem::path alexnet_sample() {
  return samples_dir() / "kineto" /
         "hta__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz";
}
inline std::filesystem::path cpu_only_sample() {
  return samples_dir() / "kineto" / "hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz";
}

}  // namespace perfsage::test

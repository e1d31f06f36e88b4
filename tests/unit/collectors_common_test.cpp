#include <zlib.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "collectors/common/collector.h"
#include "collectors/common/ordered_sink.h"
#include "collectors/ingest.h"
#include "store/database.h"
#include "store/file_bytes.h"
#include "test_support.h"

using namespace perfsage::collectors;
using perfsage::test::TempDir;

namespace {
std::string gzip(const std::string& data) {
  z_stream zs{};
  deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  std::string out(compressBound(data.size()) + 64, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = data.size();
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = out.size();
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
}  // namespace

TEST_CASE("gzip files are inflated transparently, plain files read as they are") {
  TempDir dir;
  std::string text(300000, 'x');
  text += "end";
  auto gz = dir.write("a.json.gz", gzip(text));
  auto plain = dir.write("a.json", text);
  CHECK(perfsage::store::is_gzip_file(gz));
  CHECK_FALSE(perfsage::store::is_gzip_file(plain));
  CHECK(perfsage::store::read_file(gz) == text);
  CHECK(perfsage::store::read_file(plain) == text);
  CHECK(perfsage::store::read_head(gz, 10) == std::string(10, 'x'));
}

TEST_CASE("a truncated gzip file is an error naming the file and offset") {
  TempDir dir;
  std::string z = gzip(std::string(100000, 'y') + "abcdefghijklmnopqrstuvwxyz0123456789");
  auto p = dir.write("t.json.gz", z.substr(0, z.size() / 2));
  CHECK_THROWS_WITH(perfsage::store::read_file(p),
                    Catch::Contains("t.json.gz") && Catch::Contains("truncated gzip"));
}

TEST_CASE("strict mode turns a skipped record into an error, lenient mode counts it") {
  perfsage::store::Database db(":memory:");
  perfsage::store::RunWriter w(db, {"", {}, "fp", "now"});
  RunHints hints;
  CollectContext strict(w, Mode::strict, "f.csv", hints);
  CHECK_THROWS_WITH(strict.skip("bad number in column Duration(us)", "line 7"),
                    "f.csv:line 7: bad number in column Duration(us)");
  CollectContext lenient(w, Mode::lenient, "f.csv", hints);
  lenient.skip("bad number", "line 7");
  lenient.skip("bad number", "line 9");
  lenient.skip("short row", "line 12");
  CHECK(lenient.skipped() == 3);
  auto lines = lenient.report_lines();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == "skipped 2 records: bad number (first at line 7)");
}

TEST_CASE("directories are walked in sorted order; missing inputs are errors") {
  TempDir dir;
  dir.write("b/2.csv", "x");
  dir.write("a.csv", "x");
  auto files = expand_inputs({dir.path()});
  REQUIRE(files.size() == 2);
  CHECK(files[0].path.filename() == "a.csv");
  CHECK_FALSE(files[0].named);
  CHECK_THROWS_WITH(expand_inputs({dir.path() / "nope"}), Catch::Contains("no such file"));
  auto fp1 = fingerprint_inputs(files);
  dir.write("a.csv", "xy");
  CHECK(fingerprint_inputs(expand_inputs({dir.path()})) != fp1);
}

namespace {
struct IntBatch {
  std::vector<int> v;
  void clear() { v.clear(); }
};
perfsage::store::RunHeader sink_header() {
  return {"j", {"x"}, "fp", "2026-01-01T00:00:00Z"};
}
}  // namespace

TEST_CASE("OrderedSink stores batches from several producers in number order") {
  perfsage::store::Database db(":memory:");
  perfsage::store::RunWriter w(db, sink_header());
  std::vector<int> written;  // touched by the writer thread only, read after finish()
  perfsage::collectors::OrderedSink<IntBatch> sink(
      w, 4, [&](perfsage::store::RunWriter&, IntBatch& b) {
        written.insert(written.end(), b.v.begin(), b.v.end());
      });
  std::atomic<size_t> next{0};
  std::atomic<int> bad{0};  // Catch assertions are not thread-safe: count in the producers
  const size_t total = 500;
  auto produce = [&] {
    for (size_t seq; (seq = next.fetch_add(1)) < total;) {
      IntBatch* b = sink.acquire(seq);
      if (b == nullptr || !b->v.empty()) {  // slots come back cleared
        ++bad;
        return;
      }
      if (seq % 7 == 0) std::this_thread::yield();  // finish out of order now and then
      b->v = {static_cast<int>(seq) * 2, static_cast<int>(seq) * 2 + 1};
      sink.submit(seq);
    }
  };
  std::vector<std::thread> producers;
  for (int i = 0; i < 3; ++i) producers.emplace_back(produce);
  for (auto& t : producers) t.join();
  REQUIRE(bad == 0);
  sink.finish(total);
  REQUIRE(written.size() == 2 * total);
  bool in_order = true;
  for (size_t i = 0; i < written.size(); ++i) in_order = in_order && written[i] == int(i);
  CHECK(in_order);
}

TEST_CASE("OrderedSink: abort releases waiting producers; a write error reaches them") {
  perfsage::store::Database db(":memory:");
  perfsage::store::RunWriter w(db, sink_header());
  SECTION("abort") {
    perfsage::collectors::OrderedSink<IntBatch> sink(w, 2, [](auto&, IntBatch&) {});
    // Batch 5 needs batches 0..3 written, which never come: only abort() can release it.
    std::atomic<bool> released{false};
    std::thread waiting([&] { released = sink.acquire(5) == nullptr; });
    sink.abort();
    waiting.join();
    CHECK(released);
  }
  SECTION("write error") {
    perfsage::collectors::OrderedSink<IntBatch> sink(w, 2, [](auto&, IntBatch& b) {
      if (!b.v.empty() && b.v[0] == 1) throw std::runtime_error("disk full");
    });
    for (int seq = 0; seq < 2; ++seq) {
      sink.acquire(static_cast<size_t>(seq))->v = {seq};
      sink.submit(static_cast<size_t>(seq));
    }
    // Batch 3 waits for batch 1, whose write fails: the error comes back instead.
    CHECK_THROWS_WITH(sink.acquire(3), Catch::Contains("disk full"));
    CHECK_THROWS_WITH(sink.finish(2), Catch::Contains("disk full"));
  }
}

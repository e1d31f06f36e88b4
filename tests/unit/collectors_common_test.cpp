#include <zlib.h>

#include "collectors/common/collector.h"
#include "collectors/common/file_reader.h"
#include "collectors/ingest.h"
#include "store/database.h"
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
  CHECK(is_gzip_file(gz));
  CHECK_FALSE(is_gzip_file(plain));
  CHECK(read_file(gz) == text);
  CHECK(read_file(plain) == text);
  CHECK(read_head(gz, 10) == std::string(10, 'x'));
}

TEST_CASE("a truncated gzip file is an error naming the file and offset") {
  TempDir dir;
  std::string z = gzip(std::string(100000, 'y') + "abcdefghijklmnopqrstuvwxyz0123456789");
  auto p = dir.write("t.json.gz", z.substr(0, z.size() / 2));
  CHECK_THROWS_WITH(read_file(p), Catch::Contains("t.json.gz") && Catch::Contains("truncated gzip"));
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
  CHECK(lines[0] == "skipped 2 record(s): bad number (first at line 7)");
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

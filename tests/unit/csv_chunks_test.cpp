// CSV chunking for parallel readers: chunks end on record boundaries outside quotes, cover the
// text exactly, and start on the line a single reader would report.
#include "collectors/common/csv_chunks.h"

#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>
#include <vector>

#include "collectors/common/collector.h"
#include "collectors/common/csv_reader.h"
#include "store/file_bytes.h"
#include "test_support.h"

using namespace perfsage::collectors;

namespace {

// Each record as "line:field|field|...", read by one reader over `text` whose first line is
// `first_line`; `lines` gets the number of lines the text spans.
std::vector<std::string> records(std::string_view text, size_t first_line, CsvReader::Start start,
                                 size_t& lines) {
  CsvReader r(text, ',', start);
  std::vector<std::string> out;
  while (r.next()) {
    std::string s = std::to_string(first_line + r.line() - 1) + ":";
    for (auto f : r.fields()) s += std::string(f) + "|";
    out.push_back(s + r.error());
  }
  lines = r.next_line() - 1;
  return out;
}

std::vector<CsvChunk> split(std::string_view text, size_t begin, size_t target) {
  CsvChunker chunker(text, begin, target);
  std::vector<CsvChunk> out;
  for (CsvChunk c; chunker.next(c);) out.push_back(c);
  return out;
}

}  // namespace

TEST_CASE("chunked CSV reads the records of the whole text, on the same lines") {
  std::string text = "h1,h2\n";
  for (int i = 0; i < 200; ++i) {
    std::string n = std::to_string(i);
    if (i % 9 == 0)
      text += "\"multi\nline " + n + "\",\"a \"\"quoted\"\"\n, too\"\r\n";
    else if (i % 9 == 1)
      text += "\n";  // a blank line
    else
      text += "plain" + n + ",\"x,y\"\n";
  }
  text += "last,\"unterminated";
  size_t header_end = text.find('\n') + 1;
  size_t lines = 0;
  auto whole = records(std::string_view(text).substr(header_end), 2, CsvReader::Start::file, lines);
  for (size_t target : {1, 7, 64, 500, 100000}) {
    INFO("target " << target);
    auto chunks = split(text, header_end, target);
    REQUIRE_FALSE(chunks.empty());
    CHECK(chunks.front().begin == header_end);
    CHECK(chunks.back().end == text.size());
    std::vector<std::string> joined;
    size_t line = 2;  // as the collector numbers them: each chunk after the lines before it
    for (size_t i = 0; i < chunks.size(); ++i) {
      if (i > 0) CHECK(chunks[i].begin == chunks[i - 1].end);
      // Every chunk but the last ends with a line feed outside quotes.
      if (i + 1 < chunks.size()) CHECK(text[chunks[i].end - 1] == '\n');
      size_t spanned = 0;
      auto part =
          records(std::string_view(text).substr(chunks[i].begin, chunks[i].end - chunks[i].begin),
                  line, CsvReader::Start::chunk, spanned);
      line += spanned;
      joined.insert(joined.end(), part.begin(), part.end());
    }
    CHECK(joined == whole);
    if (target == 1) CHECK(chunks.size() > 100);
  }
}

TEST_CASE("lone carriage returns as line ends are counted inside their chunk") {
  // Old Mac line ends mixed with LF ones: chunks still end only after a line feed outside
  // quotes, and each chunk's reader counts the lone CRs as lines, as the whole-text reader does.
  std::string text = "h1,h2\n";
  for (int i = 0; i < 60; ++i) text += i % 3 == 0 ? "a,\"b\rc\"\r" : i % 3 == 1 ? "d,e\r" : "f,g\n";
  size_t lines = 0;
  auto whole = records(std::string_view(text).substr(6), 2, CsvReader::Start::file, lines);
  for (size_t target : {1, 16, 100}) {
    INFO("target " << target);
    std::vector<std::string> joined;
    size_t line = 2;
    for (const auto& c : split(text, 6, target)) {
      CHECK((c.end == text.size() || text[c.end - 1] == '\n'));
      size_t spanned = 0;
      auto part = records(std::string_view(text).substr(c.begin, c.end - c.begin), line,
                          CsvReader::Start::chunk, spanned);
      line += spanned;
      joined.insert(joined.end(), part.begin(), part.end());
    }
    CHECK(joined == whole);
  }
  CHECK(split(text, text.size(), 8).empty());
}

TEST_CASE("a chunk is read without looking for a byte-order mark") {
  const std::string bom = "\xEF\xBB\xBF";
  const std::string text = bom + "a,b\n";  // the readers keep views into it
  CsvReader file(text);
  REQUIRE(file.next());
  CHECK(file[0] == "a");
  CsvReader chunk(text, ',', CsvReader::Start::chunk);
  REQUIRE(chunk.next());
  CHECK(chunk[0] == bom + "a");
}

TEST_CASE("input bytes: a mapped file, an empty file, a gzip file") {
  perfsage::test::TempDir dir;
  auto plain = dir.write("t.csv", "a,b\n1,2\n");
  CHECK(perfsage::store::InputBytes(plain).view() == "a,b\n1,2\n");
  CHECK(perfsage::store::InputBytes(dir.write("empty.csv", "")).view().empty());
  CHECK_THROWS_AS(perfsage::store::InputBytes(dir.path() / "missing.csv"),
                  perfsage::store::InputError);
  // read_file() and InputBytes agree on compressed input.
  auto gz = dir.path() / "t.csv.gz";
  {
    std::string cmd = "gzip -c " + plain.string() + " > " + gz.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
  }
  CHECK(perfsage::store::InputBytes(gz).view() == "a,b\n1,2\n");
}

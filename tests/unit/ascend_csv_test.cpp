#include "collectors/common/csv_reader.h"
#include "collectors/common/csv_values.h"
#include "test_support.h"

using namespace perfsage::collectors;

namespace {
std::vector<std::vector<std::string>> read_all(std::string_view text) {
  CsvReader r(text);
  std::vector<std::vector<std::string>> rows;
  while (r.next()) rows.emplace_back(r.fields().begin(), r.fields().end());
  return rows;
}
}  // namespace

TEST_CASE("CSV: quoted fields, doubled quotes, embedded separators and newlines") {
  auto rows = read_all("a,b,c\n\"x,1\",\"say \"\"hi\"\"\",\"two\nlines\"\nplain,,\"\"\n");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1] == std::vector<std::string>{"x,1", "say \"hi\"", "two\nlines"});
  CHECK(rows[2] == std::vector<std::string>{"plain", "", ""});
}

TEST_CASE("CSV: BOM, CRLF, lone CR, blank lines and blanks around values") {
  auto rows = read_all("\xEF\xBB\xBFName , Type\r\n\r\n  Conv2D17 ,\t\"1.5\t\" \r\nx,y\ry,z");
  REQUIRE(rows.size() == 4);
  CHECK(rows[0] == std::vector<std::string>{"Name", "Type"});
  CHECK(rows[1] == std::vector<std::string>{"Conv2D17", "1.5"});
  CHECK(rows[3] == std::vector<std::string>{"y", "z"});
}

TEST_CASE("CSV: line numbers count embedded newlines; unterminated quotes are reported") {
  CsvReader r("h1,h2\n\"a\nb\",1\nc,2\nd,\"oops\n");
  REQUIRE(r.next());
  CHECK(r.line() == 1);
  REQUIRE(r.next());
  CHECK(r.line() == 2);
  REQUIRE(r.next());
  CHECK(r.line() == 4);
  CHECK(r.error().empty());
  REQUIRE(r.next());
  CHECK(r.line() == 5);
  CHECK(r.error().find("unterminated") != std::string::npos);
  CHECK_FALSE(r.next());
}

TEST_CASE("CSV: triple-quoted shapes keep their literal quotes for the collector to strip") {
  auto rows = read_all("s\n\"\"\"4,1025;2;2\"\"\"\n\"\"\"\"\"\"\n");
  REQUIRE(rows.size() == 3);
  CHECK(rows[1][0] == "\"4,1025;2;2\"");
  CHECK(rows[2][0] == "\"\"");
}

TEST_CASE("CSV: header lookup ignores case and blanks and tries spellings in order") {
  CsvReader r(" Op Name ,Task Duration(us)\n");
  REQUIRE(r.next());
  CsvHeader h(r.fields());
  CHECK(h.find("op name") == 0u);
  CHECK(h.find_any({"Duration(us)", "Task Duration(us)"}) == 1u);
  CHECK_FALSE(h.find("Name"));
}

TEST_CASE("decimal microseconds become exact nanoseconds") {
  int64_t ns = 0;
  CHECK(parse_us_to_ns("1699529622790614.8", ns) == Cell::value);
  CHECK(ns == 1699529622790614800);
  CHECK(parse_us_to_ns("\"1704161511420306.491\t\"", ns) == Cell::value);
  CHECK(ns == 1704161511420306491);
  CHECK(parse_us_to_ns("12.77012757357446", ns) == Cell::value);
  CHECK(ns == 12770);
  CHECK(parse_us_to_ns("0.0005", ns) == Cell::value);
  CHECK(ns == 1);  // half rounds away from zero
  CHECK(parse_us_to_ns("-3", ns) == Cell::value);
  CHECK(ns == -3000);
  CHECK(parse_us_to_ns("1.5e3", ns) == Cell::value);
  CHECK(ns == 1500000);
  CHECK(parse_ms_to_ns("2.25", ns) == Cell::value);
  CHECK(ns == 2250000);
  CHECK(parse_us_to_ns("N/A", ns) == Cell::null);
  CHECK(parse_us_to_ns("", ns) == Cell::null);
  CHECK(parse_us_to_ns("12x", ns) == Cell::bad);
  CHECK(parse_us_to_ns(".", ns) == Cell::bad);
  CHECK(parse_us_to_ns("99999999999999999999", ns) == Cell::bad);
}

TEST_CASE("integers and reals: N/A is null, junk is bad") {
  int64_t i = 0;
  double d = 0;
  CHECK(parse_int("4294967295", i) == Cell::value);
  CHECK(i == 4294967295);
  CHECK(parse_int(" N/A ", i) == Cell::null);
  CHECK(parse_int("1.5", i) == Cell::bad);
  CHECK(parse_real("0.0822", d) == Cell::value);
  CHECK(d == Approx(0.0822));
  CHECK(parse_real("nan", d) == Cell::null);
  CHECK(parse_real("abc", d) == Cell::bad);
  CHECK(parse_real("inf", d) == Cell::bad);
}

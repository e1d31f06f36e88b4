#include "ascend_scale.h"

#include <cstdio>
#include <stdexcept>
#include <vector>

#include "collectors/common/csv_reader.h"
#include "collectors/common/csv_values.h"

namespace perfsage::bench {

namespace {

void append_field(std::string& out, std::string_view v) {
  if (v.find_first_of(",\"\n\r") == std::string_view::npos) {
    out += v;
    return;
  }
  out += '"';
  for (char c : v) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

void append_us(std::string& out, int64_t ns) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000),
                static_cast<long long>(ns % 1000));
  out += buf;
}

}  // namespace

std::string scale_op_table(const std::string& sample, int64_t rows) {
  using namespace perfsage::collectors;
  CsvReader r(sample);
  if (!r.next()) throw std::runtime_error("sample has no header");
  CsvHeader header(r.fields());
  auto start_col = header.find_any({"Start Time(us)", "Task Start Time(us)"});
  if (!start_col) throw std::runtime_error("sample has no start time column");
  std::string head;
  for (size_t i = 0; i < header.size(); ++i) {
    if (i) head += ',';
    append_field(head, header.names()[i]);
  }
  // Each sample row as fields, with its start time in ns.
  std::vector<std::vector<std::string>> body;
  std::vector<int64_t> starts;
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  while (r.next()) {
    int64_t ns = 0;
    if (parse_us_to_ns(r[*start_col], ns) != Cell::value) continue;
    body.emplace_back(r.fields().begin(), r.fields().end());
    starts.push_back(ns);
    lo = std::min(lo, ns);
    hi = std::max(hi, ns);
  }
  if (body.empty()) throw std::runtime_error("sample has no rows with a start time");
  const int64_t period = hi - lo + 1'000'000'000;  // one copy plus a second of idle time
  std::string out = head + "\n";
  out.reserve(sample.size() * static_cast<size_t>(rows / static_cast<int64_t>(body.size()) + 1));
  for (int64_t n = 0; n < rows; ++n) {
    size_t i = static_cast<size_t>(n % static_cast<int64_t>(body.size()));
    int64_t copy = n / static_cast<int64_t>(body.size());
    const auto& f = body[i];
    for (size_t c = 0; c < f.size(); ++c) {
      if (c) out += ',';
      if (c == *start_col)
        append_us(out, starts[i] + copy * period);
      else
        append_field(out, f[c]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace perfsage::bench

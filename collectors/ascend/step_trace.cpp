#include "collectors/ascend/step_trace.h"

#include <set>

#include "collectors/ascend/layout.h"
#include "collectors/common/csv_reader.h"
#include "collectors/common/csv_values.h"
#include "store/count_text.h"
#include "store/file_bytes.h"

namespace perfsage::collectors::ascend {

namespace {

enum class Kind { none, step_trace_time, cluster, msprof_iterations };

Kind kind_of(const CsvHeader& h) {
  bool breakdown = h.find("Computing") && h.find("Free");
  if (breakdown && h.find("Type") && h.find("Index")) return Kind::cluster;
  if (breakdown) return Kind::step_trace_time;
  if (h.find("Iteration ID") && h.find("Iteration Time(us)")) return Kind::msprof_iterations;
  return Kind::none;
}

bool csv_named(const std::string& name, std::string_view prefix) {
  return name.rfind(prefix, 0) == 0 && name.size() > 4 &&
         name.compare(name.size() - 4, 4, ".csv") == 0;
}

class RowReader {
 public:
  RowReader(const CsvHeader& h, const CsvReader& r, CollectContext& ctx)
      : h_(h), r_(r), ctx_(ctx) {}

  // The value of a column (absent column: null); false (after ctx.skip) on a bad number.
  bool real(std::string_view column, std::optional<double>& out) {
    return typed(column, out, parse_real);
  }
  bool integer(std::string_view column, std::optional<int64_t>& out) {
    return typed(column, out, parse_int);
  }
  std::string where() const { return "line " + std::to_string(r_.line()); }

 private:
  template <class T, class Parse>
  bool typed(std::string_view column, std::optional<T>& out, Parse parse) {
    out.reset();
    auto i = h_.find(column);
    if (!i || parse_optional(r_[*i], out, parse)) return true;
    ctx_.skip("bad number in column " + std::string(column), where());
    return false;
  }

  const CsvHeader& h_;
  const CsvReader& r_;
  CollectContext& ctx_;
};

// The Computing / Communication / Free breakdown shared by step_trace_time and its cluster form.
bool read_breakdown(RowReader& row, store::Step& s) {
  std::optional<double> stage;
  return row.real("Computing", s.computing_us) && row.real("Communication", s.comm_us) &&
         row.real("Communication(Not Overlapped)", s.comm_not_overlapped_us) &&
         row.real("Overlapped", s.overlapped_us) && row.real("Free", s.free_us) &&
         row.real("Bubble", s.bubble_us) && row.real("Stage", stage);
}

bool read_iteration(RowReader& row, store::Step& s) {
  std::optional<int64_t> id;
  std::optional<double> end_us, time_us, reduce;
  if (!row.integer("Iteration ID", id) || !row.real("Iteration End(us)", end_us) ||
      !row.real("Iteration Time(us)", time_us) || !row.real("Reduce Duration(us)", reduce))
    return false;
  s.step = id.value_or(0);
  if (time_us) s.dur_ns = static_cast<int64_t>(*time_us * 1000.0 + 0.5);
  if (end_us && time_us) s.start_ns = static_cast<int64_t>((*end_us - *time_us) * 1000.0 + 0.5);
  s.comm_us = reduce;
  return true;
}

}  // namespace

int StepTraceCollector::detect(const FileProbe& probe) const {
  CsvReader r(probe.head);
  if (!r.next()) return 0;
  Kind kind = kind_of(CsvHeader(r.fields()));
  if (kind == Kind::none) return 0;
  std::string name = base_name(probe.path);
  bool named = (kind == Kind::cluster && csv_named(name, "cluster_step_trace_time")) ||
               (kind == Kind::step_trace_time && csv_named(name, "step_trace_time")) ||
               (kind == Kind::msprof_iterations && csv_named(name, "step_trace_"));
  return named ? 100 : 40;
}

void StepTraceCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  std::string data = store::read_file(probe.path);
  CsvReader reader(data);
  if (!reader.next()) ctx.fail("line 1", "empty file, expected a step trace header");
  CsvHeader header(reader.fields());
  Kind kind = kind_of(header);
  if (kind == Kind::none)
    ctx.fail("line 1",
             "missing required columns: Computing and Free, or Iteration ID and "
             "Iteration Time(us)");
  Location loc = locate(probe.path);
  std::set<int64_t> ranks;
  int64_t aggregate_rows = 0;
  while (reader.next()) {
    RowReader row(header, reader, ctx);
    if (!reader.error().empty()) {
      ctx.skip(reader.error(), row.where());
      continue;
    }
    if (reader.size() != header.size()) {
      ctx.skip("row has " + std::to_string(reader.size()) + " fields, header has " +
                   std::to_string(header.size()),
               row.where());
      continue;
    }
    store::Step s;
    s.rank = loc.rank;
    if (kind == Kind::msprof_iterations) {
      s.source = "step_trace";
      if (!read_iteration(row, s)) continue;
    } else {
      std::optional<int64_t> step;
      if (!row.integer("Step", step) || !read_breakdown(row, s)) continue;
      s.step = step.value_or(0);
      s.source = kind == Kind::cluster ? "cluster_step_trace_time" : "step_trace_time";
      if (kind == Kind::cluster) {
        // Only `rank` rows are ranks; `stage` rows hold maxima over a rank tuple.
        if (to_lower_ascii(reader[*header.find("Type")]) != "rank") {
          ++aggregate_rows;
          continue;
        }
        std::optional<int64_t> rank;
        if (!row.integer("Index", rank)) continue;
        if (!rank) {
          ctx.skip("rank row without an Index", row.where());
          continue;
        }
        s.rank = *rank;
        ranks.insert(*rank);
      }
    }
    ctx.out().add(s);
    ctx.record();
  }
  for (int64_t r : ranks) {
    store::RankInfo info;
    info.rank = r;
    info.world_size = static_cast<int64_t>(ranks.size());
    info.source = "cluster_step_trace_time";
    ctx.out().add(info);
    ctx.record();
  }
  if (aggregate_rows > 0)
    ctx.warn(store::count_text(aggregate_rows, "aggregate (non-rank) row") + " left out");
  if (ctx.hints().device.empty()) ctx.hints().device = "ascend";
}

}  // namespace perfsage::collectors::ascend

#include "app/run_charts.h"

#include <algorithm>
#include <vector>

namespace perfsage::app {
namespace v1 = perfsage::v1;
namespace {

// One step as the steps table holds it, split as the chart draws it.
struct StepRow {
  int64_t rank = 0, step = 0;
  double computing = 0, comm = 0, free = 0, total = 0;
};

struct SourceSteps {
  std::string source;
  bool breakdown = false;     // some step has computing, communication or free time
  std::vector<StepRow> rows;  // by rank, then step
};

// The sources in the order the iteration analyzer prefers them (rank_balance.cpp).
int preference(const std::string& source) {
  static const char* order[] = {"step_trace_time", "step_trace", "ProfilerStep", "gpu_breakdown",
                                "cluster_step_trace_time"};
  for (int i = 0; i < 5; ++i)
    if (source == order[i]) return i;
  return 5;
}

std::string source_title(const std::string& source) {
  if (source == "step_trace_time") return "step_trace_time.csv (Ascend PyTorch profiler)";
  if (source == "step_trace") return "msprof step trace (iterations)";
  if (source == "ProfilerStep") return "ProfilerStep#N spans of the trace";
  if (source == "gpu_breakdown") return "GPU activity within each ProfilerStep (GPU analysis)";
  if (source == "cluster_step_trace_time") return "cluster_step_trace_time.csv (msprof-analyze)";
  return source;
}

std::string steps_text(size_t n) {
  return std::to_string(n) + (n == 1 ? " step" : " steps");
}

std::vector<SourceSteps> read_sources(store::Database& db, int64_t run_id) {
  auto st = db.prepare(
      "SELECT source, rank, step, dur_ns, computing_us, comm_not_overlapped_us, comm_us, "
      "free_us FROM steps WHERE run_id=?1 ORDER BY source, rank, step");
  st.bind(1, run_id);
  std::vector<SourceSteps> out;
  while (st.step()) {
    if (out.empty() || out.back().source != st.text(0)) out.push_back({st.text(0), false, {}});
    StepRow r;
    r.rank = st.int64(1);
    r.step = st.int64(2);
    r.computing = st.is_null(4) ? 0 : st.real(4);
    r.comm = !st.is_null(5) ? st.real(5) : st.is_null(6) ? 0 : st.real(6);
    r.free = st.is_null(7) ? 0 : st.real(7);
    double parts = r.computing + r.comm + r.free;
    r.total = std::max(parts, st.is_null(3) ? 0 : static_cast<double>(st.int64(3)) / 1000.0);
    out.back().breakdown |= parts > 0;
    out.back().rows.push_back(r);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return preference(a.source) < preference(b.source);
  });
  return out;
}

// The sources drawn: those with a breakdown (the GPU analysis's windows only when no recorded
// source has one: on an Ascend run they repeat the ProfilerStep spans); with none, the
// preferred source's step times. The rest are named in the first chart's note.
std::vector<const SourceSteps*> drawn_sources(const std::vector<SourceSteps>& all) {
  std::vector<const SourceSteps*> out;
  for (const auto& s : all)
    if (s.breakdown && s.source != "gpu_breakdown") out.push_back(&s);
  if (out.empty()) {
    for (const auto& s : all)
      if (s.breakdown) out.push_back(&s);
  }
  if (out.empty() && !all.empty()) out.push_back(&all.front());
  return out;
}

void add_segment(v1::StepBar& bar, const std::string& name, double us) {
  if (us <= 0) return;
  auto* s = bar.add_segments();
  s->set_name(name);
  s->set_us(us);
}

// One bar from consecutive steps of one rank: the mean of each part, the range of the totals.
v1::StepBar make_bar(const std::vector<StepRow>& rows, size_t from, size_t to, bool breakdown) {
  v1::StepBar bar;
  const double n = static_cast<double>(to - from);
  double computing = 0, comm = 0, free = 0, total = 0;
  double lo = rows[from].total, hi = rows[from].total;
  for (size_t i = from; i < to; ++i) {
    computing += rows[i].computing;
    comm += rows[i].comm;
    free += rows[i].free;
    total += rows[i].total;
    lo = std::min(lo, rows[i].total);
    hi = std::max(hi, rows[i].total);
  }
  bar.set_rank(rows[from].rank);
  bar.set_step(rows[from].step);
  bar.set_last_step(rows[to - 1].step);
  bar.set_steps(static_cast<int64_t>(to - from));
  bar.set_total_us(total / n);
  bar.set_min_total_us(lo);
  bar.set_max_total_us(hi);
  if (!breakdown) {
    add_segment(bar, "whole step", total / n);
    return bar;
  }
  add_segment(bar, "computing", computing / n);
  add_segment(bar, "communication (not overlapped)", comm / n);
  add_segment(bar, "free", free / n);
  // Time the breakdown does not account for (e.g. a step measured end to end).
  double parts = (computing + comm + free) / n;
  if (total / n > parts * 1.001) add_segment(bar, "other", total / n - parts);
  return bar;
}

v1::StepChart make_chart(const SourceSteps& s, int max_bars) {
  v1::StepChart chart;
  chart.set_source(s.source);
  chart.set_title(source_title(s.source));
  chart.set_breakdown(s.breakdown);
  chart.set_steps(static_cast<int64_t>(s.rows.size()));
  // Each rank's rows: [begin, end) in s.rows.
  std::vector<std::pair<size_t, size_t>> ranks;
  for (size_t i = 0; i < s.rows.size(); ++i) {
    if (ranks.empty() || s.rows[i].rank != s.rows[ranks.back().first].rank) ranks.push_back({i, i});
    ranks.back().second = i + 1;
  }
  chart.set_ranks(static_cast<int64_t>(ranks.size()));
  const size_t limit = static_cast<size_t>(std::max(1, max_bars));
  const size_t shown = std::min(ranks.size(), limit);
  size_t longest = 0;
  for (size_t r = 0; r < shown; ++r) longest = std::max(longest, ranks[r].second - ranks[r].first);
  const size_t per_rank = std::max<size_t>(1, limit / std::max<size_t>(1, shown));
  const size_t per_bar = (longest + per_rank - 1) / per_rank;
  chart.set_steps_per_bar(static_cast<int64_t>(std::max<size_t>(1, per_bar)));
  for (size_t r = 0; r < shown; ++r) {
    for (size_t i = ranks[r].first; i < ranks[r].second; i += chart.steps_per_bar()) {
      size_t end = std::min(ranks[r].second, i + static_cast<size_t>(chart.steps_per_bar()));
      *chart.add_bars() = make_bar(s.rows, i, end, s.breakdown);
    }
  }
  std::string note;
  if (chart.steps_per_bar() > 1)
    note = steps_text(s.rows.size()) + ": each bar is the mean of up to " +
           std::to_string(chart.steps_per_bar()) +
           " consecutive steps of a rank, its whisker the shortest to the longest of them.";
  if (shown < ranks.size())
    note += std::string(note.empty() ? "" : " ") + "The first " + std::to_string(shown) + " of " +
            std::to_string(ranks.size()) + " ranks are shown.";
  chart.set_note(note);
  return chart;
}

void load_steps(store::Database& db, int64_t run_id, int max_bars, v1::RunCharts& out) {
  auto all = read_sources(db, run_id);
  auto drawn = drawn_sources(all);
  for (const auto* s : drawn) *out.add_step_charts() = make_chart(*s, max_bars);
  std::string others;
  for (const auto& s : all) {
    // A source without a breakdown says less than the drawn ones: not worth naming.
    if (!s.breakdown || std::find(drawn.begin(), drawn.end(), &s) != drawn.end()) continue;
    others += std::string(others.empty() ? "" : "; ") + source_title(s.source) + ", " +
              steps_text(s.rows.size());
  }
  if (!others.empty() && out.step_charts_size() > 0) {
    auto* first = out.mutable_step_charts(0);
    first->set_note(first->note() + (first->note().empty() ? "" : " ") +
                    "Also recorded, not drawn: " + others + ".");
  }
}

// Why the Roofline lacks ops: none on the device, no peak to draw roofs from, or ops without
// a FLOP or byte count (the roofline analysis's reasons, most common first).
std::string roofline_note(store::Database& db, int64_t run_id, const v1::Roofline& roof,
                          int64_t placed) {
  auto count = db.prepare("SELECT count(*) FROM roofline_ops WHERE run_id=?1");
  count.bind(1, run_id);
  int64_t ops = count.step() ? count.int64(0) : 0;
  if (ops == 0) return "The run has no device op to place (a CPU-only run, or no op table).";
  std::string note;
  if (roof.roofs_size() == 0)
    note = std::string("No roofs: the peak FLOP/s and memory bandwidth of ") +
           (roof.hardware().empty() ? std::string("the device") : roof.hardware()) +
           " are unknown (docs/hardware.md). ";
  if (placed >= ops) return note;
  note +=
      placed == 0
          ? std::string("None of the ") + std::to_string(ops) + " device ops has a point: "
          : std::to_string(ops - placed) + " of " + std::to_string(ops) +
                (ops - placed == 1 ? " device ops has no point: " : " device ops have no point: ");
  auto why = db.prepare(
      "SELECT coalesce(nullif(reason,''), bound), count(*) AS n FROM roofline_ops WHERE "
      "run_id=?1 AND NOT (coalesce(intensity,0) > 0 AND coalesce(achieved,0) > 0) GROUP BY 1 "
      "ORDER BY n DESC, 1 LIMIT 4");
  why.bind(1, run_id);
  std::string reasons;
  while (why.step())
    reasons += std::string(reasons.empty() ? "" : "; ") + why.text(0) + " (" +
               std::to_string(why.int64(1)) + ")";
  return note + reasons + ".";
}

void load_roofline(store::Database& db, int64_t run_id, int max_points, v1::RunCharts& out) {
  auto* roof = out.mutable_roofline();
  auto hw = db.prepare(
      "SELECT coalesce(part,''), peak_fp32, peak_tf32, peak_fp16, peak_bf16, peak_int8, "
      "peak_vector, bandwidth FROM hardware_specs WHERE run_id=?1 LIMIT 1");
  hw.bind(1, run_id);
  if (hw.step()) {
    roof->set_hardware(hw.text(0));
    double bw = hw.is_null(7) ? 0 : hw.real(7);
    const char* names[] = {"fp32", "tf32", "fp16", "bf16", "int8", "vector"};
    for (int i = 0; i < 6; ++i) {
      if (hw.is_null(1 + i) || hw.real(1 + i) <= 0) continue;
      auto* r = roof->add_roofs();
      r->set_precision(names[i]);
      r->set_peak_flops(hw.real(1 + i));
      r->set_bandwidth(bw);
    }
  }
  auto placed = db.prepare(
      "SELECT count(*) FROM roofline_ops WHERE run_id=?1 AND intensity > 0 AND achieved > 0");
  placed.bind(1, run_id);
  int64_t n_placed = placed.step() ? placed.int64(0) : 0;
  auto ops = db.prepare(
      "SELECT name, coalesce(type,''), intensity, achieved, coalesce(total_us,0), "
      "coalesce(share,0), bound, coalesce(precision,'') FROM roofline_ops WHERE run_id=?1 AND "
      "intensity > 0 AND achieved > 0 ORDER BY total_us DESC LIMIT ?2");
  ops.bind(1, run_id).bind(2, static_cast<int64_t>(max_points));
  while (ops.step()) {
    auto* p = roof->add_points();
    p->set_name(ops.text(0));
    p->set_type(ops.text(1));
    p->set_intensity(ops.real(2));
    p->set_achieved(ops.real(3));
    p->set_total_us(ops.real(4));
    p->set_share(ops.real(5));
    p->set_bound(ops.text(6));
    p->set_precision(ops.text(7));
  }
  std::string note = roofline_note(db, run_id, *roof, n_placed);
  if (n_placed > roof->points_size())
    note += std::string(note.empty() ? "" : " ") + "The " + std::to_string(roof->points_size()) +
            " ops with the most time of " + std::to_string(n_placed) + " placed are drawn.";
  roof->set_note(note);
}

}  // namespace

v1::RunCharts load_run_charts(store::Database& db, int64_t run_id, int max_bars, int max_points) {
  v1::RunCharts out;
  load_steps(db, run_id, max_bars, out);
  load_roofline(db, run_id, max_points, out);
  return out;
}

}  // namespace perfsage::app

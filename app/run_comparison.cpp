#include "app/run_comparison.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analyzers/core/step_ctes.h"
#include "app/comparison_totals.h"
#include "app/run_detail.h"
#include "engine/kb/message_text.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;

namespace {

// What the comparison needs of a run besides its summary row.
struct Side {
  store::RunRow row;
  int64_t ranks = 0;
  // steps x ranks: the denominator of per-step op times; 0 when the run has no steps.
  double rank_steps = 0;
};

Side load_side(store::Database& db, int64_t id) {
  auto rows = store::run_rows(db, {id});
  if (rows.empty()) throw std::invalid_argument("no run " + std::to_string(id) + " in the store");
  Side s;
  s.row = std::move(rows.front());
  auto st = db.prepare("SELECT coalesce(ranks, 0) FROM runs WHERE id = ?1");
  st.bind(1, id);
  if (st.step()) s.ranks = std::max<int64_t>(1, st.int64(0));
  s.rank_steps = static_cast<double>(s.row.steps * s.ranks);
  return s;
}

// ---- step breakdown (the iteration analyzer's per-rank sums, as the iteration fact reads them)

struct RankSums {
  std::string source;
  int64_t steps = 0;
  double dur = 0, computing = 0, exposed = 0, idle = 0;
};

std::map<int64_t, RankSums> rank_sums(store::Database& db, int64_t run) {
  auto st = db.prepare(
      "SELECT rank, source, steps, coalesce(dur_us, 0), coalesce(computing_us, 0), "
      "coalesce(comm_not_overlapped_us, 0), coalesce(free_us, 0) FROM iteration_ranks "
      "WHERE run_id = ?1 AND steps > 0 ORDER BY rank");
  st.bind(1, run);
  std::map<int64_t, RankSums> out;
  while (st.step()) {
    RankSums r{st.text(1), st.int64(2), st.real(3), st.real(4), st.real(5), st.real(6)};
    // A step recorded end to end has its duration; else it is the sum of its parts.
    if (r.dur <= 0) r.dur = r.computing + r.exposed + r.idle;
    out[st.int64(0)] = r;
  }
  return out;
}

// Mean step over the given ranks: sums over ranks divided by their steps.
v1::StepBreakdown mean_step(const std::vector<const RankSums*>& ranks) {
  v1::StepBreakdown b;
  int64_t steps = 0;
  double dur = 0, computing = 0, exposed = 0, idle = 0;
  std::string source;
  for (const auto* r : ranks) {
    if (source.empty() || r->source < source) source = r->source;
    steps += r->steps;
    dur += r->dur;
    computing += r->computing;
    exposed += r->exposed;
    idle += r->idle;
  }
  if (steps == 0) return b;
  b.set_source(source);
  b.set_steps(steps / static_cast<int64_t>(ranks.size()));
  double n = static_cast<double>(steps);
  b.set_step_us(dur / n);
  b.set_computing_us(computing / n);
  b.set_comm_exposed_us(exposed / n);
  b.set_idle_us(idle / n);
  // Below a nanosecond per step the remainder is rounding of the parts, not time.
  double other = (dur - computing - exposed - idle) / n;
  b.set_other_us(other >= 1e-3 ? other : 0.0);
  return b;
}

std::string rank_list(const std::vector<int64_t>& ranks) {
  std::string s;
  for (size_t i = 0; i < ranks.size() && i < 8; ++i)
    s += (i ? ", " : "") + std::to_string(ranks[i]);
  if (ranks.size() > 8) s += ", ... (" + std::to_string(ranks.size()) + " ranks)";
  return s;
}

// The run's step source: the steps its step time (and every gain's base) is measured on.
std::string step_source(store::Database& db, int64_t run) {
  auto st = db.prepare("WITH " + analyzers::step_ctes() + " SELECT source FROM stepsrc");
  st.bind(1, run);
  return st.step() ? st.text(0) : std::string();
}

// Why a run has no breakdown. A CPU-only run has no device to break down: that is what it is,
// not a fault of the comparison.
std::string breakdown_absence(const Side& s) {
  return s.row.device == "cpu" ? "no device breakdown (CPU-only run)"
                               : "no step source with computing / communication / free times";
}

// A note when a run's step time and its breakdown are measured on different steps. The GPU
// breakdown is the GPU analyzer's breakdown of the ProfilerStep spans: the same steps.
void note_step_sources(const Side& s, const std::string& summary, const std::string& breakdown,
                       v1::RunComparison& out) {
  if (breakdown.empty() || summary == breakdown) return;
  if (summary == "ProfilerStep" && breakdown == "gpu_breakdown") return;
  std::string run = "run " + std::to_string(s.row.id);
  if (summary.empty()) {
    out.add_notes(run + " has no recorded steps: its breakdown (" + breakdown +
                  ") spans the profile, not a step, and it has no step time");
    return;
  }
  out.add_notes(run + ": the step time is measured on " + summary + " steps, the breakdown on " +
                breakdown + " steps (different sources)");
}

void compare_breakdown(store::Database& db, const Side& a, const Side& b, v1::RunComparison& out) {
  auto ra = rank_sums(db, a.row.id), rb = rank_sums(db, b.row.id);
  out.set_step_source_a(step_source(db, a.row.id));
  out.set_step_source_b(step_source(db, b.row.id));
  auto all = [](const std::map<int64_t, RankSums>& m) {
    std::vector<const RankSums*> v;
    for (const auto& [rank, sums] : m) v.push_back(&sums);
    return v;
  };
  auto* whole = out.add_breakdown();
  whole->set_rank(-1);
  if (!ra.empty()) *whole->mutable_a() = mean_step(all(ra));
  if (!rb.empty()) *whole->mutable_b() = mean_step(all(rb));
  for (const auto* side : {&a, &b}) {
    bool is_a = side == &a;
    if (!(is_a ? ra : rb).empty()) continue;
    std::string why = breakdown_absence(*side);
    is_a ? whole->set_absent_a(why) : whole->set_absent_b(why);
    if (side->row.device != "cpu") {
      out.add_notes("run " + std::to_string(side->row.id) + " has no step breakdown (" + why + ")");
    }
  }
  note_step_sources(a, out.step_source_a(), whole->a().source(), out);
  if (b.row.id != a.row.id) note_step_sources(b, out.step_source_b(), whole->b().source(), out);
  if (ra.empty() || rb.empty()) return;
  if (whole->a().source() != whole->b().source()) {
    out.add_notes("the step breakdowns come from different step sources (" + whole->a().source() +
                  " in run " + std::to_string(a.row.id) + ", " + whole->b().source() + " in run " +
                  std::to_string(b.row.id) +
                  "): their parts may be measured "
                  "differently");
  }
  if (ra.size() < 2 && rb.size() < 2) return;
  // Like with like: a rank's steps against the same rank's steps.
  std::vector<int64_t> only_a, only_b;
  for (const auto& [rank, sums] : ra) {
    auto it = rb.find(rank);
    if (it == rb.end()) {
      only_a.push_back(rank);
      continue;
    }
    auto* c = out.add_breakdown();
    c->set_rank(rank);
    *c->mutable_a() = mean_step({&sums});
    *c->mutable_b() = mean_step({&it->second});
  }
  for (const auto& [rank, sums] : rb) {
    if (!ra.count(rank)) only_b.push_back(rank);
  }
  if (!only_a.empty()) {
    out.add_notes("ranks only in run " + std::to_string(a.row.id) + ": " + rank_list(only_a));
  }
  if (!only_b.empty()) {
    out.add_notes("ranks only in run " + std::to_string(b.row.id) + ": " + rank_list(only_b));
  }
}

// ---- ops, kernels, CPU ops, copies and runtime calls (app/comparison_totals.h)

bool same_time(double x, double y) {
  return std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
}

void compare_ops(store::Database& db, const Side& a, const Side& b, const CompareOptions& options,
                 v1::RunComparison& out) {
  bool per_step = options.order == OpOrder::per_step && a.rank_steps > 0 && b.rank_steps > 0;
  out.set_sort(per_step ? "step" : "total");
  out.set_top(options.top);
  auto ta = compared_totals(db, a.row.id), tb = compared_totals(db, b.row.id);
  for (const char* kind : kComparedKinds) {
    const NameTotals& xa = ta[kind];
    const NameTotals& xb = tb[kind];
    std::vector<v1::OpDelta> deltas;
    auto add = [&](const std::string& name, const NameTotal* oa, const NameTotal* ob) {
      NameTotal za = oa ? *oa : NameTotal{}, zb = ob ? *ob : NameTotal{};
      if (oa && ob && oa->count == ob->count && oa->bytes == ob->bytes && same_time(oa->us, ob->us))
        return;
      v1::OpDelta d;
      d.set_kind(kind);
      d.set_name(name);
      d.set_display_name(engine::short_name(name));
      d.set_change(!oa ? "appeared" : !ob ? "disappeared" : "changed");
      d.set_count_a(za.count);
      d.set_count_b(zb.count);
      d.set_total_us_a(za.us);
      d.set_total_us_b(zb.us);
      d.set_total_delta_us(zb.us - za.us);
      d.set_bytes_a(za.bytes);
      d.set_bytes_b(zb.bytes);
      if (a.rank_steps > 0 && b.rank_steps > 0) {
        d.set_step_us_a(za.us / a.rank_steps);
        d.set_step_us_b(zb.us / b.rank_steps);
        d.set_step_delta_us(d.step_us_b() - d.step_us_a());
      }
      deltas.push_back(std::move(d));
    };
    for (const auto& [name, t] : xa) {
      auto it = xb.find(name);
      add(name, &t, it == xb.end() ? nullptr : &it->second);
    }
    for (const auto& [name, t] : xb) {
      if (!xa.count(name)) add(name, nullptr, &t);
    }
    // By the size of the time change; a count that moved with no time change (copies too
    // short to time) after those, by how far the count moved.
    auto key = [per_step](const v1::OpDelta& d) {
      return std::abs(per_step ? d.step_delta_us() : d.total_delta_us());
    };
    std::stable_sort(deltas.begin(), deltas.end(), [&](const v1::OpDelta& x, const v1::OpDelta& y) {
      if (key(x) != key(y)) return key(x) > key(y);
      return std::abs(x.count_b() - x.count_a()) > std::abs(y.count_b() - y.count_a());
    });
    if (deltas.size() > static_cast<size_t>(options.top)) deltas.resize(options.top);
    for (auto& d : deltas) *out.add_ops() = std::move(d);
  }
}

// ---- what is not like with like

void compare_devices(const Side& a, const Side& b, v1::RunComparison& out) {
  const auto &ra = a.row, &rb = b.row;
  bool same = ra.device == rb.device && (ra.chip.empty() || rb.chip.empty() || ra.chip == rb.chip);
  out.set_same_device(same);
  auto name = [](const store::RunRow& r) {
    return r.device + (r.chip.empty() ? "" : " " + r.chip);
  };
  if (!same) {
    out.add_notes("the runs are on different devices (run " + std::to_string(ra.id) + ": " +
                  name(ra) + ", run " + std::to_string(rb.id) + ": " + name(rb) +
                  "): their step and op times measure different hardware");
  }
  if (ra.id == rb.id) out.add_notes("both sides are run " + std::to_string(ra.id));
  for (const auto* s : {&a, &b}) {
    if (s->row.steps == 0) {
      out.add_notes("run " + std::to_string(s->row.id) +
                    " has no steps: step time and per-step op times are not compared");
    }
  }
}

}  // namespace

Result<v1::RunComparison> compare_runs(store::Database& db, int64_t a, int64_t b,
                                       const CompareOptions& options) {
  if (options.top < 1) return Error{ErrorKind::usage, "the number of ops to show must be >= 1"};
  Side sa, sb;
  try {
    sa = load_side(db, a);
    sb = load_side(db, b);
  } catch (const std::invalid_argument& e) {
    return Error{ErrorKind::usage, e.what()};
  } catch (const std::exception& e) {
    return Error{ErrorKind::store, e.what()};
  }
  try {
    v1::RunComparison out;
    *out.mutable_a() = run_summary(sa.row);
    *out.mutable_b() = run_summary(sb.row);
    compare_devices(sa, sb, out);
    if (sa.row.step_time_us > 0 && sb.row.step_time_us > 0) {
      out.set_step_time_delta_us(sb.row.step_time_us - sa.row.step_time_us);
      out.set_step_time_change(sb.row.step_time_us / sa.row.step_time_us - 1);
    }
    compare_breakdown(db, sa, sb, out);
    compare_ops(db, sa, sb, options, out);
    for (auto& c : compare_findings(store::run_finding_rows(db, a), store::run_finding_rows(db, b)))
      *out.add_findings() = std::move(c);
    return out;
  } catch (const std::exception& e) {
    return Error{ErrorKind::store, e.what()};
  }
}

}  // namespace perfsage::app

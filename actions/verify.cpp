#include "actions/verify.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "actions/aoe.h"
#include "actions/kind.h"
#include "store/action_store.h"
#include "store/number_text.h"

namespace perfsage::actions {
namespace v1 = perfsage::v1;
namespace {

// " IN (?2, ?3, ...)" for n bound names after the run id.
std::string in_list(size_t n) {
  std::string out = " IN (";
  for (size_t i = 0; i < n; ++i) out += (i ? ", ?" : "?") + std::to_string(i + 2);
  return out + ")";
}

// Ops of the run named by `names`: op names, or op types (AOE lists may name types).
std::optional<double> ops_time(store::Database& db, int64_t run,
                               const std::vector<std::string>& names, bool count) {
  if (names.empty()) return std::nullopt;
  std::string list = in_list(names.size());
  std::string second = " IN (";
  for (size_t i = 0; i < names.size(); ++i) {
    second += (i ? ", ?" : "?") + std::to_string(i + 2 + names.size());
  }
  second += ")";
  auto st =
      db.prepare(std::string(count ? "SELECT count(*)" : "SELECT coalesce(sum(total_us), 0)") +
                 " FROM op_stats WHERE run_id = ?1 AND (name" + list + " OR type" + second + ")");
  st.bind(1, run);
  for (size_t i = 0; i < names.size(); ++i) {
    st.bind(static_cast<int>(i + 2), names[i]);
    st.bind(static_cast<int>(i + 2 + names.size()), names[i]);
  }
  if (!st.step()) return std::nullopt;
  return st.real(0);
}

// Fewer recorded steps than this on either run leave the noise band unknown: two steps give a
// spread from a single difference.
constexpr int64_t kMinSteps = 3;

struct Steps {
  int64_t count = 0;      // recorded steps of all ranks (the denominator of per-step op times)
  int64_t ranks = 0;      // ranks with at least kMinSteps steps: the ones the spread is read from
  int64_t min_steps = 0;  // the fewest steps among those ranks
  double cv = 0;          // the largest coefficient of variation of one rank's own step durations
};

// The step-to-step spread is read per rank, from the rank's own steps: ranks of one run differ
// by constant amounts (a slow rank, a rank with extra work), which are not noise, so pooling
// their steps would widen the band by the differences between ranks. The largest rank's
// variation is kept: the metrics sum over ranks and move with the noisiest one, and a wider
// band errs towards "no effect" rather than a false "helped".
Steps steps_of(store::Database& db, int64_t run) {
  auto st = db.prepare(
      "SELECT rank, dur_ns FROM recorded_steps WHERE run_id = ?1 AND dur_ns > 0 ORDER BY rank");
  st.bind(1, run);
  std::map<int64_t, std::vector<double>> by_rank;
  while (st.step()) by_rank[st.int64(0)].push_back(static_cast<double>(st.int64(1)));
  Steps s;
  for (const auto& [rank, d] : by_rank) {
    s.count += static_cast<int64_t>(d.size());
    if (static_cast<int64_t>(d.size()) < kMinSteps) continue;
    double mean = 0;
    for (double x : d) mean += x;
    mean /= static_cast<double>(d.size());
    double var = 0;
    for (double x : d) var += (x - mean) * (x - mean);
    var /= static_cast<double>(d.size() - 1);
    s.cv = std::max(s.cv, mean > 0 ? std::sqrt(var) / mean : 0);
    auto n = static_cast<int64_t>(d.size());
    s.min_steps = s.ranks == 0 ? n : std::min(s.min_steps, n);
    ++s.ranks;
  }
  return s;
}

// "5 steps", or over several ranks "2 ranks of at least 5 steps".
std::string steps_text(const Steps& s) {
  if (s.ranks == 1) return std::to_string(s.min_steps) + " steps";
  return std::to_string(s.ranks) + " ranks of at least " + std::to_string(s.min_steps) + " steps";
}

std::optional<double> step_time(store::Database& db, int64_t run) {
  auto st = db.prepare("SELECT step_time_us FROM runs WHERE id = ?1 AND step_time_us > 0");
  st.bind(1, run);
  if (!st.step()) return std::nullopt;
  return st.real(0);
}

const v1::Finding* find(const std::vector<v1::Finding>& list, const std::string& id) {
  for (const auto& f : list) {
    if (f.id() == id) return &f;
  }
  return nullptr;
}

std::optional<double> evidence_us(const v1::Finding* f, const std::string& name) {
  if (!f) return std::nullopt;
  for (const auto& e : f->evidence()) {
    if (e.value_case() == v1::Evidence::kNumber && e.unit() == "us" &&
        (name.empty() || e.name() == name)) {
      return e.number();
    }
  }
  return std::nullopt;
}

std::string evidence_name(const v1::Finding* f) {
  if (!f) return "";
  for (const auto& e : f->evidence()) {
    if (e.value_case() == v1::Evidence::kNumber && e.unit() == "us") return e.name();
  }
  return "";
}

}  // namespace

Measure time_measure(const VerifyContext& ctx, const std::vector<std::string>& ops) {
  store::Database& db = ctx.db;
  const v1::Finding* before_f = ctx.before;
  const v1::Finding* after_f = ctx.after;
  Measure m;
  // The rule's own measure while the finding still fires on the later run.
  std::string evidence = evidence_name(before_f);
  if (!evidence.empty() && evidence_us(after_f, evidence)) {
    m.metric = "the finding's " + evidence;
    m.unit = "us";
    m.before = evidence_us(before_f, evidence);
    m.after = evidence_us(after_f, evidence);
    return m;
  }
  // Otherwise the time of the ops it named (subjects, or the AOE action's op list).
  if (ops_time(db, ctx.before_run, ops, true).value_or(0) > 0) {
    m.before = ops_time(db, ctx.before_run, ops, false);
    m.after = ops_time(db, ctx.after_run, ops, false);
    m.metric = "time of the finding's ops";
    if (ctx.before_steps > 0 && ctx.after_steps > 0) {
      *m.before /= static_cast<double>(ctx.before_steps);
      *m.after /= static_cast<double>(ctx.after_steps);
      m.unit = "us per step";
    } else {
      m.unit = "us";
      if (!m.note.empty()) m.note += "; ";
      m.note += "totals over each run (a run has no recorded steps)";
    }
    return m;
  }
  if (!evidence.empty()) {  // the finding is gone and named no ops: nothing to compare with
    m.metric = "the finding's " + evidence;
    m.unit = "us";
    m.before = evidence_us(before_f, evidence);
    return m;
  }
  m.metric = "step time";
  m.unit = "us";
  m.before = step_time(db, ctx.before_run);
  m.after = step_time(db, ctx.after_run);
  return m;
}

std::optional<double> value_over_names(store::Database& db, const char* sql_head, int64_t run,
                                       const std::vector<std::string>& names) {
  auto st = db.prepare(std::string(sql_head) + in_list(names.size()));
  st.bind(1, run);
  for (size_t i = 0; i < names.size(); ++i) st.bind(static_cast<int>(i + 2), names[i]);
  if (!st.step() || st.is_null(0)) return std::nullopt;
  return st.real(0);
}

namespace {

// A measure as the text report writes numbers: "21.85 ms", "1.20 ms per step", "12 nodes".
std::string measure_text(double v, const std::string& unit) {
  if (unit == "us" || unit.rfind("us ", 0) == 0) return store::format_us(v) + unit.substr(2);
  return store::format_number(v) + (unit.empty() ? "" : " " + unit);
}

}  // namespace

std::optional<int64_t> next_run_of_job(store::Database& db, const std::string& job,
                                       int64_t plan_run, const std::string& applied_at) {
  auto st = db.prepare(
      "SELECT id FROM runs r WHERE job = ?1 AND id > ?2 AND created >= ?3 AND EXISTS "
      "(SELECT 1 FROM pack_results p WHERE p.run_id = r.id) ORDER BY id LIMIT 1");
  st.bind(1, job).bind(2, plan_run).bind(3, applied_at);
  if (!st.step()) return std::nullopt;
  return st.int64(0);
}

std::vector<v1::ActionVerdict> verify_actions(store::Database& db, const FindingsOfRun& findings_of,
                                              const Actor& actor,
                                              std::optional<int64_t> after_run) {
  std::vector<v1::ActionVerdict> out;
  std::map<int64_t, std::vector<v1::Finding>> cache;
  auto findings = [&](int64_t run) -> const std::vector<v1::Finding>& {
    auto it = cache.find(run);
    if (it == cache.end()) it = cache.emplace(run, findings_of(run)).first;
    return it->second;
  };
  for (const auto& apply : store::load_action_applies(db)) {
    if (apply.rolled_back) continue;
    auto plan = load_plan(db, apply.plan_id);
    auto next = next_run_of_job(db, plan.job(), plan.run_id(), apply.applied);
    if (!next || (after_run && *next != *after_run)) continue;
    Steps sb = steps_of(db, plan.run_id()), sa = steps_of(db, *next);
    std::string verdicts;
    for (const auto& step : plan.steps()) {
      const auto* before_f = find(findings(plan.run_id()), step.finding());
      const auto* after_f = find(findings(*next), step.finding());
      VerifyContext ctx{db,       plan.run_id(),
                        *next,    before_f,
                        after_f,  split_op_names({step.subjects().begin(), step.subjects().end()}),
                        sb.count, sa.count};
      // A plan of a kind this build does not know is judged on the default metric.
      const ActionKind* kind = find_action_kind(plan.kind());
      Measure m = kind ? kind->measure(ctx, step) : time_measure(ctx, ctx.subjects);
      // An action the apply left out did nothing to judge.
      std::string left_out = kind ? kind->left_out(step, apply.allow_inexact) : "";
      store::ActionVerdictRow row;
      row.apply_id = apply.id;
      row.finding = step.finding();
      row.before_run = plan.run_id();
      row.after_run = *next;
      row.metric = m.metric;
      row.unit = m.unit;
      row.before = m.before;
      row.after = m.after;
      row.finding_present = after_f != nullptr;
      row.judged = actor.clock();
      // The band comes from the runs' own step-to-step spread; without enough steps to measure
      // it the noise is unknown, and so is the verdict (the change is still stated).
      std::optional<double> rel;
      std::string band_note;
      if (m.count) {
        rel = 0;
      } else if (sb.ranks > 0 && sa.ranks > 0 && std::max(sb.cv, sa.cv) > 0) {
        rel = 2 * std::max(sb.cv, sa.cv);
        band_note = "noise band twice the larger step-to-step variation of a rank (" +
                    steps_text(sb) + " and " + steps_text(sa) + ")";
      } else if (sb.ranks > 0 && sa.ranks > 0) {
        // Steps of identical length are quantised or synthetic, not a spread of zero.
        band_note = "noise band unknown: every recorded step of both runs lasts the same time";
      } else {
        band_note = "noise band unknown: a run has no rank with " + std::to_string(kMinSteps) +
                    " or more recorded steps to measure its step-to-step spread";
      }
      if (!left_out.empty()) {
        row.verdict = "not_applied";
        row.detail = "not applied: " + left_out;
      } else if (!m.before || !m.after) {
        row.verdict = row.finding_present ? "not_measurable" : "finding_gone";
        row.detail = m.metric + " could not be measured on both runs";
      } else {
        double change = *m.after - *m.before;
        if (rel) row.noise = *rel * *m.before;
        if (!rel) {
          row.verdict = "unknown";
        } else if (*m.before <= 0 && *m.after <= 0) {
          row.verdict = "no_effect";
        } else if (change < -*row.noise && change < 0) {
          row.verdict = "helped";
        } else if (change > *row.noise && change > 0) {
          row.verdict = "regressed";
        } else {
          row.verdict = "no_effect";
        }
        row.detail = m.metric + ": " + measure_text(*m.before, m.unit) + " -> " +
                     measure_text(*m.after, m.unit) +
                     (*m.before > 0 ? " (" + store::format_pct(change / *m.before) + ")" : "");
        if (!m.count) {
          row.detail += "; " + band_note;
          if (row.noise) row.detail += " (+/-" + measure_text(*row.noise, m.unit) + ")";
        }
        if (!m.note.empty()) row.detail += "; " + m.note;
      }
      row.detail += row.finding_present ? "; the finding fired again" : "; the finding is gone";
      store::save_action_verdict(db, row);
      verdicts += (verdicts.empty() ? "" : ", ") + step.finding() + " " + row.verdict;
      out.push_back(verdict_message(row));
    }
    store::append_action_audit(db, {0,
                                    actor.clock(),
                                    actor.name,
                                    "verify",
                                    apply.plan_id,
                                    apply.id,
                                    {},
                                    "run " + std::to_string(*next) + ": " + verdicts});
  }
  return out;
}

}  // namespace perfsage::actions

#include "engine/facts/registry.h"

#include <cstdlib>
#include <sstream>

#include "engine/error.h"
#include "store/database.h"

namespace perfsage::engine::facts {
namespace {

// Shared CTEs: the run's wall span, total step time, and the base every estimated gain and
// share is stated on (docs/kb-authoring.md, "One base for gains and shares"): one rank's mean
// step when steps with durations exist, else the run's wall span. `units` is how many base
// units the run's totals cover (steps per rank x ranks), so total / units is the amount per
// base. Host and device events' span comes from their blocks' recorded bounds: no event is
// decoded.
constexpr std::string_view kCommon = R"sql(
span AS MATERIALIZED (
  SELECT min(s) AS s, max(e) AS e FROM (
    SELECT min(min_start_ns) AS s, max(max_end_ns) AS e FROM event_blocks
    WHERE side IN ('host_events', 'device_events') AND run_id = ?1
    UNION ALL
    SELECT min(start_ns), max(start_ns + dur_ns) FROM op_tasks WHERE run_id = ?1)),
stepdur AS MATERIALIZED (
  -- One duration per rank and step, whatever number of sources recorded it.
  SELECT rank, step, max(dur_ns) AS d FROM recorded_steps
  WHERE run_id = ?1 AND dur_ns > 0 GROUP BY rank, step),
steptotal AS (SELECT sum(d) / 1000.0 AS us FROM stepdur),
rankstep AS (SELECT rank, count(*) AS n, avg(d) / 1000.0 AS mean FROM stepdur GROUP BY rank),
base AS MATERIALIZED (
  SELECT CASE WHEN n > 0 THEN 'step' WHEN wall > 0 THEN 'run' ELSE 'none' END AS kind,
    CASE WHEN n > 0 THEN mean ELSE coalesce(wall, 0.0) END AS us,
    CASE WHEN n > 0 THEN CAST(n AS REAL) / r ELSE 1.0 END AS steps,
    CASE WHEN n > 0 THEN r ELSE runranks END AS ranks,
    CASE WHEN n > 0 THEN CAST(n AS REAL) ELSE runranks END AS units
  FROM (SELECT (SELECT count(*) FROM stepdur) AS n,
          (SELECT count(DISTINCT rank) FROM stepdur) AS r,
          (SELECT avg(d) / 1000.0 FROM stepdur) AS mean,
          ((SELECT e FROM span) - (SELECT s FROM span)) / 1000.0 AS wall,
          max(1, coalesce((SELECT ranks FROM runs WHERE id = ?1),
                          (SELECT count(DISTINCT rank) FROM recorded_steps WHERE run_id = ?1), 1))
            AS runranks)),
reftime AS (SELECT us FROM base))sql";

std::vector<FactType> build() {
  std::vector<FactType> out;
  declare_run_types(out);
  declare_ascend_types(out);
  declare_cuda_types(out);
  declare_graph_types(out);
  declare_iteration_types(out);
  declare_roofline_types(out);
  for (auto& t : out) {
    auto pos = t.query.find("{common}");
    if (pos != std::string::npos) t.query.replace(pos, 8, kCommon);
  }
  return out;
}

std::string escape_md(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '|')
      out += "\\|";
    else
      out += c;
  }
  return out;
}

}  // namespace

std::string median_of(const std::string& v) {
  return "(SELECT avg(" + v + ") FROM (SELECT " + v + " FROM x ORDER BY " + v +
         " LIMIT 2 - (SELECT count(*) FROM x) % 2 OFFSET ((SELECT count(*) FROM x) - 1) / 2))";
}

const char* clips_type_name(SlotType t) {
  switch (t) {
    case SlotType::Integer:
      return "INTEGER";
    case SlotType::Float:
      return "FLOAT";
    case SlotType::Symbol:
      return "SYMBOL";
    case SlotType::String:
      return "STRING";
  }
  return "?";
}

const Slot* FactType::slot(std::string_view n) const {
  for (const auto& s : slots)
    if (s.name == n) return &s;
  return nullptr;
}

const std::vector<FactType>& fact_types() {
  static const std::vector<FactType> types = build();
  return types;
}

const FactType* find_fact_type(std::string_view name) {
  for (const auto& t : fact_types())
    if (t.name == name) return &t;
  return nullptr;
}

clips::Value slot_default(const Slot& slot) {
  switch (slot.type) {
    case SlotType::Integer:
      return clips::Value::of_int(
          slot.default_value.empty() ? 0 : std::atoll(slot.default_value.c_str()));
    case SlotType::Float:
      return clips::Value::of_float(
          slot.default_value.empty() ? 0.0 : std::atof(slot.default_value.c_str()));
    case SlotType::Symbol:
      return clips::Value::of_symbol(slot.default_value.empty() ? "unknown" : slot.default_value);
    case SlotType::String:
      return clips::Value::of_string("");
  }
  return {};
}

std::string deftemplate(const FactType& t) {
  std::ostringstream o;
  o << "(deftemplate " << t.name << "\n";
  for (const auto& s : t.slots) {
    o << "  (slot " << s.name << " (type " << clips_type_name(s.type) << ") (default ";
    auto d = slot_default(s);
    switch (s.type) {
      case SlotType::Integer:
        o << d.integer;
        break;
      case SlotType::Float:
        o << (d.real == 0 ? std::string("0.0") : std::to_string(d.real));
        break;
      case SlotType::Symbol:
        o << d.text;
        break;
      case SlotType::String:
        o << "\"\"";
        break;
    }
    o << "))\n";
  }
  o << ")\n";
  return o.str();
}

clips::Value coerce(const Slot& slot, const clips::Value& v) {
  using clips::Value;
  using clips::ValueType;
  auto fail = [&](const char* what) -> Value {
    throw EngineError("slot '" + slot.name + "' expects " + what + ", got '" + v.text + "'");
  };
  switch (slot.type) {
    case SlotType::Integer:
      if (v.type == ValueType::Integer) return v;
      if (v.type == ValueType::Float && v.real == static_cast<double>(static_cast<int64_t>(v.real)))
        return Value::of_int(static_cast<int64_t>(v.real));
      return fail("an integer");
    case SlotType::Float:
      if (v.is_number()) return Value::of_float(v.number());
      return fail("a number");
    case SlotType::Symbol:
      if (v.type == ValueType::Symbol || v.type == ValueType::String) {
        if (v.text.empty() || v.text.find_first_of(" \t\n\"()&|<~;") != std::string::npos)
          return fail("a symbol (no spaces or parentheses)");
        return Value::of_symbol(v.text);
      }
      return fail("a symbol");
    case SlotType::String:
      if (v.type == ValueType::String || v.type == ValueType::Symbol)
        return Value::of_string(v.text);
      if (v.type == ValueType::Integer) return Value::of_string(std::to_string(v.integer));
      return fail("a string");
  }
  return v;
}

std::vector<SlotValues> query_facts(store::Database& db, int64_t run_id, const FactType& t) {
  std::vector<SlotValues> out;
  auto st = db.prepare(t.query);
  st.bind(1, run_id);
  std::vector<int> column_of(t.slots.size(), -1);
  bool mapped = false;
  while (st.step()) {
    if (!mapped) {
      for (int c = 0; c < st.column_count(); ++c) {
        std::string name = st.column_name(c);
        for (size_t i = 0; i < t.slots.size(); ++i)
          if (t.slots[i].name == name) column_of[i] = c;
      }
      mapped = true;
    }
    SlotValues fact;
    fact.reserve(t.slots.size());
    for (size_t i = 0; i < t.slots.size(); ++i) {
      const Slot& s = t.slots[i];
      int c = column_of[i];
      clips::Value v;
      if (c < 0 || st.is_null(c)) {
        v = slot_default(s);
      } else {
        switch (s.type) {
          case SlotType::Integer:
            v = clips::Value::of_int(st.int64(c));
            break;
          case SlotType::Float:
            v = clips::Value::of_float(st.real(c));
            break;
          case SlotType::Symbol: {
            std::string text = st.text(c);
            v = text.empty() ? slot_default(s) : clips::Value::of_symbol(text);
            break;
          }
          case SlotType::String:
            v = clips::Value::of_string(st.text(c));
            break;
        }
      }
      fact.emplace_back(s.name, std::move(v));
    }
    out.push_back(std::move(fact));
  }
  return out;
}

std::string facts_markdown() {
  std::ostringstream o;
  o << "# Fact types\n\n"
       "Generated from the fact registry (`engine/facts/`); `perfsage kb facts` prints this page.\n"
       "Packs name the types they match in `uses`; only those are asserted into the pack's\n"
       "CLIPS environment. Facts are aggregated per run (never raw events). Times are in\n"
       "microseconds (`us`), shares are ratios in 0..1. Missing values take the default shown.\n\n"
       "## The base of gains and shares\n\n"
       "Every estimated gain is time saved per *base unit* and every share is gain / base, so\n"
       "one report ranks its findings on one base. The `run` fact states it: `base` is `step`\n"
       "when steps with durations were recorded (the base is one rank's step: `base_us` is the\n"
       "mean step duration over every rank and step, never steps summed over ranks), `run`\n"
       "otherwise (`base_us` is the run's wall span), `none` without timing (graph-only runs).\n"
       "`base_units` = `base_steps` x `base_ranks` is how many base units the run's totals\n"
       "cover: a time summed over the whole profile and all ranks (most `total_us` slots)\n"
       "divided by `base_units` is the amount per base. Facts whose times are already per step\n"
       "(`iteration`, `rank`, `schedule`) say so; per-rank facts (`schedule`,\n"
       "`device_activity`) carry the rank's own step (`step_us`), the number of ranks and "
       "medians,\n"
       "so a rule can speak for the worst rank on its own base and say on how many ranks it\n"
       "holds. Slots named `share` that are shares of device or kernel time say so in their\n"
       "meaning; they describe an op, they are not the base.\n\n";
  for (const auto& t : fact_types()) {
    o << "## `" << t.name << "`\n\n" << t.doc << "\n\n";
    if (!t.cardinality.empty()) o << "Cardinality: " << t.cardinality << ".\n\n";
    o << "| slot | type | unit | default | meaning |\n|---|---|---|---|---|\n";
    for (const auto& s : t.slots) {
      auto d = slot_default(s);
      std::string def = s.type == SlotType::String    ? "\"\""
                        : s.type == SlotType::Symbol  ? d.text
                        : s.type == SlotType::Integer ? std::to_string(d.integer)
                                                      : "0.0";
      o << "| `" << s.name << "` | " << clips_type_name(s.type) << " | " << s.unit << " | " << def
        << " | " << escape_md(s.doc) << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace perfsage::engine::facts

#include "engine/facts/registry.h"

#include <cstdlib>
#include <sstream>

#include "engine/error.h"
#include "store/database.h"
#include "store/derived_tables.h"

namespace perfsage::engine::facts {
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

Catalog::Catalog(std::vector<FactType> types) : types_(std::move(types)) {}

const FactType* Catalog::find(std::string_view name) const {
  for (const auto& t : types_)
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
  // Slots and columns are matched by name once, before the first row: a slot that no column
  // fills would silently take its default on every fact, so either side left over is an error.
  std::vector<int> column_of(t.slots.size(), -1);
  std::string mismatch;
  for (int c = 0; c < st.column_count(); ++c) {
    std::string name = st.column_name(c);
    bool used = false;
    for (size_t i = 0; i < t.slots.size(); ++i) {
      if (t.slots[i].name == name) {
        column_of[i] = c;
        used = true;
      }
    }
    if (!used) mismatch += "; column " + name + " fills no slot";
  }
  for (size_t i = 0; i < t.slots.size(); ++i)
    if (column_of[i] < 0) mismatch += "; slot " + t.slots[i].name + " has no column";
  if (!mismatch.empty()) throw EngineError("fact type " + t.name + ": " + mismatch.substr(2));
  while (st.step()) {
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

std::string facts_markdown(const Catalog& catalog) {
  std::ostringstream o;
  o << "# Fact types\n\n"
       "Generated from the fact types declared beside the analyzers (`analyzers/*/facts.cpp`)\n"
       "and, at the end, the derived tables they read (`analyzers/*/tables.cpp`);\n"
       "`perfsage kb facts` prints this page.\n"
       "Packs name the types they match in `uses`; only those are asserted into the pack's\n"
       "CLIPS environment. Facts are aggregated per run (never raw events). Times are in\n"
       "microseconds (`us`), shares are ratios in 0..1. Missing values take the default shown.\n\n"
       "## The base of gains and shares\n\n"
       "Every estimated gain is time saved per *base unit* and every share is gain / base, so\n"
       "one report ranks its findings on one base. The `run` fact states it: `base` is `step`\n"
       "when steps were recorded (the base is one rank's step: `base_us` is the mean step\n"
       "duration over every rank and step, never steps summed over ranks), `run` otherwise\n"
       "(`base_us` is the run's wall span), `none` without timing (graph-only runs). The steps\n"
       "are those of one step source, the one on the most ranks (then step_trace_time,\n"
       "ProfilerStep, cluster_step_trace_time): a step's recorded duration, else the sum of its\n"
       "breakdown (computing + exposed communication + free). The `iteration` and `rank` facts\n"
       "read the same steps, so their `step_us` and `mean_total_us` are the base.\n"
       "`base_units` = `base_steps` x `base_ranks` is how many base units the run's totals\n"
       "cover: a time summed over the whole profile and all ranks (most `total_us` slots)\n"
       "divided by `base_units` is the amount per base. Facts whose times are already per step\n"
       "(`iteration`, `rank`, `schedule`) say so; per-rank facts (`schedule`,\n"
       "`device_activity`) carry the rank's own step (`step_us`), the number of ranks and "
       "medians,\n"
       "so a rule can speak for the worst rank on its own base and say on how many ranks it\n"
       "holds. Slots named `share` that are shares of device or kernel time say so in their\n"
       "meaning; they describe an op, they are not the base.\n\n";
  for (const auto& t : catalog.types()) {
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
        << " | " << store::markdown_cell(s.doc) << " |\n";
    }
    o << "\n";
  }
  return o.str();
}

}  // namespace perfsage::engine::facts

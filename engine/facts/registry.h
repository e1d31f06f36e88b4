// Fact types: the contract between the store (analyzers) and knowledge-base packs.
//
// Each type is declared once (name, doc, slots with CLIPS types and units, and the SQL
// query producing its facts for one run, parameter ?1 = run id). From that declaration
// come the CLIPS deftemplate, docs/facts.md (facts_markdown()) and the checks that a pack
// only uses existing types and slots.
//
// To add a type, append one declaration to one of the declare_* functions (or a new one
// called from registry.cpp). Query columns are matched to slots by name; NULL becomes
// the slot's default. Queries must aggregate: facts are bounded, never raw events.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/clips/value.h"

namespace perfsage::store {
class Database;
}

namespace perfsage::engine::clips {
class Environment;
}

namespace perfsage::engine::facts {

enum class SlotType { Integer, Float, Symbol, String };
const char* clips_type_name(SlotType t);  // INTEGER, FLOAT, SYMBOL, STRING

struct Slot {
  std::string name;
  SlotType type = SlotType::Float;
  std::string unit;  // us, bytes, ratio (0..1), count, or empty
  std::string doc;
  std::string default_value;  // CLIPS literal; empty = 0, 0.0, "" or unknown by type
};

struct FactType {
  std::string name;
  std::string doc;
  std::string cardinality;  // "one per run", "one per op name", ...
  std::vector<Slot> slots;
  std::string query;  // SQL; ?1 = run id; may use the CTEs of kCommonCte via {common}

  const Slot* slot(std::string_view n) const;
};

// All declared fact types, in documentation order.
const std::vector<FactType>& fact_types();
const FactType* find_fact_type(std::string_view name);

// (deftemplate NAME (slot s (type T) (default D)) ...) with the doc as comment.
std::string deftemplate(const FactType& t);

// Markdown reference of every fact type (the content of docs/facts.md).
std::string facts_markdown();

using SlotValues = std::vector<std::pair<std::string, clips::Value>>;

// Runs the type's query for one run and returns its facts (slot values in slot order).
std::vector<SlotValues> query_facts(store::Database& db, int64_t run_id, const FactType& t);

// Converts a value given by a user (pack test, fixture) to the slot's type; throws
// EngineError naming the slot when it cannot.
clips::Value coerce(const Slot& slot, const clips::Value& v);
clips::Value slot_default(const Slot& slot);

// SQL for the median of column `v` of a CTE named `x` (the mean of the two middle values
// when their number is even): per-rank facts state how their ranks compare.
std::string median_of(const std::string& v);

// Declarations, split by area.
void declare_run_types(std::vector<FactType>& out);
void declare_ascend_types(std::vector<FactType>& out);
void declare_cuda_types(std::vector<FactType>& out);
void declare_graph_types(std::vector<FactType>& out);
void declare_iteration_types(std::vector<FactType>& out);
void declare_roofline_types(std::vector<FactType>& out);

}  // namespace perfsage::engine::facts

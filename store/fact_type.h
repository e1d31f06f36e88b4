// Fact types: the contract between the store's tables and knowledge-base packs. Each type is a
// named query over one run (parameter ?1 = run id) whose columns fill typed slots. The types are
// declared beside the analyzers whose tables they read (analyzers/*/facts.cpp, collected by
// analyzers::fact_types()); the engine turns them into CLIPS templates and facts. Plain data
// here, so that analyzers declare them without knowing the engine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "store/derived_tables.h"

namespace perfsage::store {

enum class SlotType { Integer, Float, Symbol, String };

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
  // SQL; ?1 = run id. Query columns are matched to slots by name; NULL becomes the slot's
  // default. Queries must aggregate: facts are bounded, never raw events.
  std::string query;

  const Slot* slot(std::string_view n) const;
};

// A fact type that shows the rows of one derived table as they are: one slot per named column,
// its type, unit and meaning taken from the table's declaration (INTEGER, REAL -> FLOAT, TEXT ->
// STRING, or SYMBOL when the column is declared one). Throws std::logic_error naming a column the
// table does not declare.
struct Projection {
  std::string name;
  std::string doc;
  std::string cardinality;
  std::vector<std::string> columns;
  std::string order_by;  // SQL, e.g. "total_us DESC"; empty for none
  int limit = 0;         // facts are bounded: required
};
FactType projection_fact(const DerivedTable& table, const Projection& p);

// Why a fact type's query and its slots disagree: a slot that no column of the query fills (it
// would silently take its default) or a column that fills no slot. Empty when they agree. The
// query is prepared on `db`, whose tables must exist; a query that does not prepare is reported
// with SQLite's reason.
std::string slot_mismatch(Database& db, const FactType& t);

// SQL for the median of column `v` of a CTE named `x` (the mean of the two middle values
// when their number is even): per-rank facts state how their ranks compare.
std::string median_of(const std::string& v);

}  // namespace perfsage::store

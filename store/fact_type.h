// Fact types: the contract between the store's tables and knowledge-base packs. Each type is a
// named query over one run (parameter ?1 = run id) whose columns fill typed slots. The types are
// declared beside the analyzers whose tables they read (analyzers/*/facts.cpp, collected by
// analyzers::fact_types()); the engine turns them into CLIPS templates and facts. Plain data
// here, so that analyzers declare them without knowing the engine.
#pragma once

#include <string>
#include <string_view>
#include <vector>

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

// SQL for the median of column `v` of a CTE named `x` (the mean of the two middle values
// when their number is even): per-rank facts state how their ranks compare.
std::string median_of(const std::string& v);

}  // namespace perfsage::store

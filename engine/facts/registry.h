// Fact types in the engine: the catalog of types packs may use, their CLIPS deftemplates, the
// reference page (docs/facts.md) and the queries that turn a run into facts.
//
// The types themselves are plain data declared beside the analyzers whose tables they read
// (store/fact_type.h, analyzers/*/facts.cpp); the application builds a Catalog from them and
// hands it to the engine with the pack selection, so the engine knows no analyzer.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/clips/value.h"
#include "store/fact_type.h"

namespace perfsage::store {
class Database;
}

namespace perfsage::engine::clips {
class Environment;
}

namespace perfsage::engine::facts {

using store::FactType;
using store::Slot;
using store::SlotType;

const char* clips_type_name(SlotType t);  // INTEGER, FLOAT, SYMBOL, STRING

// The fact types packs may use, looked up by name.
class Catalog {
 public:
  explicit Catalog(std::vector<FactType> types);
  const std::vector<FactType>& types() const { return types_; }
  const FactType* find(std::string_view name) const;

 private:
  std::vector<FactType> types_;
};

// (deftemplate NAME (slot s (type T) (default D)) ...) with the doc as comment.
std::string deftemplate(const FactType& t);

// Markdown reference of every fact type (the content of docs/facts.md).
std::string facts_markdown(const Catalog& catalog);

using SlotValues = std::vector<std::pair<std::string, clips::Value>>;

// Runs the type's query for one run and returns its facts (slot values in slot order).
std::vector<SlotValues> query_facts(store::Database& db, int64_t run_id, const FactType& t);

// Converts a value given by a user (pack test, fixture) to the slot's type; throws
// EngineError naming the slot when it cannot.
clips::Value coerce(const Slot& slot, const clips::Value& v);
clips::Value slot_default(const Slot& slot);

}  // namespace perfsage::engine::facts

#include "store/fact_type.h"

#include <set>
#include <stdexcept>

namespace perfsage::store {

const Slot* FactType::slot(std::string_view n) const {
  for (const auto& s : slots)
    if (s.name == n) return &s;
  return nullptr;
}

FactType projection_fact(const DerivedTable& table, const Projection& p) {
  if (p.limit <= 0) throw std::logic_error("fact type " + p.name + ": a projection needs a limit");
  FactType t{p.name, p.doc, p.cardinality, {}, "SELECT "};
  for (size_t i = 0; i < p.columns.size(); ++i) {
    const Column* c = table.column(p.columns[i]);
    if (!c) {
      throw std::logic_error("fact type " + p.name + ": table " + table.name +
                             " declares no column " + p.columns[i]);
    }
    SlotType type = c->type == SqlType::Integer ? SlotType::Integer
                    : c->type == SqlType::Real  ? SlotType::Float
                    : c->symbol                 ? SlotType::Symbol
                                                : SlotType::String;
    t.slots.push_back({c->name, type, c->unit, c->doc, ""});
    t.query += (i ? ", " : "") + c->name;
  }
  t.query += " FROM " + table.name + " WHERE run_id = ?1";
  if (!p.order_by.empty()) t.query += " ORDER BY " + p.order_by;
  t.query += " LIMIT " + std::to_string(p.limit);
  return t;
}

std::string slot_mismatch(Database& db, const FactType& t) {
  std::set<std::string> columns;
  try {
    auto st = db.prepare(t.query);
    for (int c = 0; c < st.column_count(); ++c) columns.insert(st.column_name(c));
  } catch (const StoreError& e) {
    return "fact type " + t.name + ": its query does not prepare: " + e.what();
  }
  std::string why;
  std::set<std::string> slots;
  for (const auto& s : t.slots) {
    slots.insert(s.name);
    if (!columns.count(s.name))
      why += (why.empty() ? "" : "; ") + ("slot " + s.name + " has no column");
  }
  for (const auto& c : columns)
    if (!slots.count(c)) why += (why.empty() ? "" : "; ") + ("column " + c + " fills no slot");
  return why.empty() ? why : "fact type " + t.name + ": " + why;
}

std::string median_of(const std::string& v) {
  return "(SELECT avg(" + v + ") FROM (SELECT " + v + " FROM x ORDER BY " + v +
         " LIMIT 2 - (SELECT count(*) FROM x) % 2 OFFSET ((SELECT count(*) FROM x) - 1) / 2))";
}

}  // namespace perfsage::store

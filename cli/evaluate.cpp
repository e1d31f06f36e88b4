#include "cli/evaluate.h"

#include "engine/kb/load_result.h"
#include "store/results.h"

namespace perfsage::cli {

std::optional<engine::PackSet> load_packs(const KbRequest& req, std::ostream& err) {
  std::vector<engine::LoadMessage> messages;
  engine::Selection sel;
  if (!req.config_path.empty()) {
    sel = engine::read_config(req.config_path, messages);
    if (engine::has_errors(messages)) {
      for (const auto& m : messages) err << m.str() << "\n";
      return std::nullopt;
    }
  }
  sel.only = req.names;
  auto loaded = engine::load_pack_set(sel);
  messages.insert(messages.end(), loaded.messages.begin(), loaded.messages.end());
  // Broken packs still appear in the report with status error; only print what was said.
  for (const auto& m : messages) err << m.str() << "\n";
  if (!req.names.empty()) {
    for (const auto& want : req.names) {
      bool found = false;
      for (const auto& p : loaded.set.packs) found = found || engine::glob_match(want, p.pack.name);
      if (!found) {
        err << "perfsage: no knowledge-base pack matches '" << want << "'\n";
        return std::nullopt;
      }
    }
  }
  return std::move(loaded.set);
}

void evaluate_and_store(store::Database& db, int64_t run_id, const engine::PackSet& packs) {
  auto ev = engine::evaluate(db, run_id, packs);
  store::save_results(db, run_id, ev.packs, ev.recommendations);
}

}  // namespace perfsage::cli

#include "cli/run_target.h"

#include <charconv>

#include "app/actions_service.h"
#include "app/stored_run.h"

namespace perfsage::cli {

std::optional<int64_t> parse_id(const std::string& s) {
  int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || v <= 0) return std::nullopt;
  return v;
}

RunResolver::RunResolver(std::string config, std::vector<std::string> kb, std::ostream& err)
    : config_(std::move(config)), kb_(std::move(kb)), err_(err) {}

app::Result<int64_t> RunResolver::resolve(app::Database& db, const std::string& target) {
  if (auto id = parse_id(target)) return *id;
  // A stored run of these inputs stands for them when its analysis finished (app/stored_run.h).
  auto stored = app::reusable_run_of(db, target);
  if (!stored) return stored.error();
  if (*stored) return **stored;
  // Not stored, or its analysis did not finish: analyse it with the configured packs.
  if (!knowledge_) {
    auto ctx = load_context(config_, err_);
    if (!ctx) return ctx.error();
    auto knowledge = load_knowledge(*ctx, kb_, err_);
    if (!knowledge) return knowledge.error();
    ctx_ = std::move(*ctx);
    knowledge_ = std::move(*knowledge);
  }
  app::AnalysisRequest req;
  req.inputs = {target};
  auto outcome = app::analyze(db, req, *knowledge_, ctx_->config.limits);
  if (!outcome) return outcome.error();
  for (const auto& n : outcome->notices) err_ << "perfsage: " << n << "\n";
  return outcome->run_id;
}

}  // namespace perfsage::cli

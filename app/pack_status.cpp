#include "app/pack_status.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;

PackListing list_packs(const AppConfig& config, const Resources& resources) {
  PackListing out;
  auto sel = compose_selection(config, resources, {}, out.messages);
  out.packs = engine::list_packs(sel, out.messages);
  return out;
}

v1::PackList pack_list(const std::vector<PackInfo>& packs) {
  v1::PackList list;
  for (const auto& p : packs) {
    auto* i = list.add_packs();
    i->set_name(p.name);
    i->set_version(p.version);
    i->set_description(p.description);
    i->set_maturity(p.maturity);
    for (const auto& a : p.applies_to) i->add_applies_to(a);
    for (const auto& u : p.uses) i->add_uses(u);
    i->set_rules(static_cast<int64_t>(p.rules));
    i->set_path(p.dir.string());
    i->set_source(p.source);
    i->set_valid(p.valid);
    i->set_error(p.error);
  }
  return list;
}

std::vector<v1::PackStatus> pack_statuses(const Knowledge& knowledge) {
  std::vector<v1::PackStatus> out;
  for (const auto& p : knowledge.packs.packs) {
    auto& s = out.emplace_back();
    s.set_name(p.pack.name);
    s.set_version(p.pack.version);
    s.set_status(p.valid ? "ok" : "error");
    s.set_error(p.error);
    s.set_source(p.pack.source);
    s.set_path(p.pack.dir.string());
    s.set_rules(static_cast<int64_t>(p.rules.size()));
  }
  return out;
}

}  // namespace perfsage::app

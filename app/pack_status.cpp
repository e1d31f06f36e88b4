#include "app/pack_status.h"

#include <filesystem>
#include <set>

namespace perfsage::app {
namespace v1 = perfsage::v1;
namespace fs = std::filesystem;

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
  std::set<std::string> broken_files;
  for (const auto& p : knowledge.packs.packs) {
    auto& s = out.emplace_back();
    s.set_name(p.pack.name);
    s.set_version(p.pack.version);
    s.set_status(p.valid ? "ok" : "error");
    s.set_error(p.error);
    s.set_source(p.pack.source);
    s.set_path(p.pack.dir.string());
    s.set_rules(static_cast<int64_t>(p.rules.size()));
    if (!p.valid) broken_files.insert(p.pack.file.string());
  }
  // An error about a pack file that no pack of the set stands for (a second definition of a
  // pack name, refused): that folder's pack is broken too, named by its folder.
  for (const auto& m : knowledge.messages) {
    if (!m.error() || m.file.empty() || broken_files.count(m.file)) continue;
    broken_files.insert(m.file);
    fs::path dir = fs::path(m.file).parent_path();
    auto& s = out.emplace_back();
    s.set_name(dir.filename().string());
    s.set_status("error");
    s.set_error(m.str());
    s.set_path(dir.string());
  }
  return out;
}

std::vector<v1::PackStatus> broken_packs(const std::vector<v1::PackStatus>& statuses) {
  std::vector<v1::PackStatus> out;
  for (const auto& s : statuses)
    if (s.status() != "ok") out.push_back(s);
  return out;
}

}  // namespace perfsage::app

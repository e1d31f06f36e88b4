// The findings part of a run comparison: a finding's id is stable across runs of a job, so the
// same id in both runs is the same problem; its severity, gain share or (without a gain) its
// measure may have moved.
#include <map>
#include <set>
#include <unordered_map>

#include "app/gain_tolerance.h"
#include "app/run_comparison.h"
#include "engine/finding.h"
#include "engine/kb/message_text.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;

namespace {

v1::FindingChange change_of(const store::FindingRow& f) {
  v1::FindingChange c;
  c.set_id(f.id);
  c.set_pack(f.pack);
  c.set_rule(f.rule);
  c.set_title(finding_title(f));
  c.set_severity(static_cast<v1::Severity>(f.severity));
  return c;
}

std::string percent(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", 100 * share);
  return buf;
}

// A rule without a gain expression leaves both at 0: the gain is unknown, not zero.
bool gain_known(const store::FindingRow& f) {
  return f.gain_us != 0 || f.gain_share != 0;
}

std::map<std::string, v1::Evidence> evidence_numbers(const store::FindingRow& row) {
  std::map<std::string, v1::Evidence> out;
  v1::Finding f;
  if (!f.ParseFromString(row.payload)) return out;
  for (const auto& e : f.evidence()) {
    if (e.has_number()) out.emplace(e.name(), e);
  }
  return out;
}

// The evidence numbers present in both that moved beyond the one tolerance, in key order.
std::vector<v1::MeasureChange> moved_measures(const store::FindingRow& a,
                                              const store::FindingRow& b) {
  std::vector<v1::MeasureChange> out;
  auto ea = evidence_numbers(a), eb = evidence_numbers(b);
  for (const auto& [name, ev] : ea) {
    auto it = eb.find(name);
    if (it == eb.end()) continue;
    double va = ev.number(), vb = it->second.number();
    bool moved = va >= 0 && vb >= 0 ? share_move(va, vb) != ShareMove::steady : va != vb;
    if (!moved) continue;
    v1::MeasureChange m;
    m.set_name(name);
    m.set_a(va);
    m.set_b(vb);
    m.set_unit(ev.unit());
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace

std::string finding_title(const store::FindingRow& row) {
  v1::Finding f;
  if (f.ParseFromString(row.payload)) return f.title();
  return row.rule;
}

std::vector<v1::FindingChange> compare_findings(const std::vector<store::FindingRow>& fa,
                                                const std::vector<store::FindingRow>& fb) {
  std::unordered_map<std::string, const store::FindingRow*> in_a, in_b;
  for (const auto& f : fa) in_a.try_emplace(f.id, &f);
  for (const auto& f : fb) in_b.try_emplace(f.id, &f);
  std::vector<v1::FindingChange> appeared, disappeared, changed, unchanged;
  std::set<std::string> done;
  for (const auto& f : fb) {
    if (!done.insert(f.id).second) continue;
    auto c = change_of(f);
    c.set_gain_us_b(f.gain_us);
    c.set_gain_share_b(f.gain_share);
    c.set_gain_known_b(gain_known(f));
    auto it = in_a.find(f.id);
    if (it == in_a.end()) {
      c.set_change("appeared");
      appeared.push_back(std::move(c));
      continue;
    }
    const auto& a = *it->second;
    c.set_gain_us_a(a.gain_us);
    c.set_gain_share_a(a.gain_share);
    c.set_severity_a(static_cast<v1::Severity>(a.severity));
    std::string detail;
    if (a.severity != f.severity) {
      detail = std::string("severity ") +
               engine::severity_name(static_cast<v1::Severity>(a.severity)) + " -> " +
               engine::severity_name(static_cast<v1::Severity>(f.severity));
    }
    c.set_gain_known_a(gain_known(a));
    c.set_gain_known_b(gain_known(f));
    // The one tolerance (app/gain_tolerance.h), as a job history's trend uses it.
    if (c.gain_known_a() && c.gain_known_b()) {
      if (share_move(a.gain_share, f.gain_share) != ShareMove::steady) {
        detail += (detail.empty() ? "" : "; ") + std::string("gain share ") +
                  percent(a.gain_share) + " -> " + percent(f.gain_share);
      }
    } else if (c.gain_known_a() != c.gain_known_b()) {
      detail += (detail.empty() ? "" : "; ") + std::string("gain ") +
                (c.gain_known_a() ? percent(a.gain_share) + " -> unknown"
                                  : "unknown -> " + percent(f.gain_share));
    } else {
      // No gain to compare: the finding's measure, its evidence numbers, is compared instead.
      for (auto& m : moved_measures(a, f)) {
        detail += (detail.empty() ? "" : "; ") + m.name() + " " +
                  engine::format_evidence(m.name(), m.a()) + " -> " +
                  engine::format_evidence(m.name(), m.b());
        *c.add_measures() = std::move(m);
      }
    }
    c.set_change(detail.empty() ? "unchanged" : "changed");
    c.set_detail(detail);
    (detail.empty() ? unchanged : changed).push_back(std::move(c));
  }
  for (const auto& f : fa) {
    if (in_b.count(f.id) || !done.insert(f.id).second) continue;
    auto c = change_of(f);
    c.set_change("disappeared");
    c.set_severity_a(static_cast<v1::Severity>(f.severity));
    c.set_gain_us_a(f.gain_us);
    c.set_gain_share_a(f.gain_share);
    c.set_gain_known_a(gain_known(f));
    disappeared.push_back(std::move(c));
  }
  std::vector<v1::FindingChange> out;
  for (auto* group : {&appeared, &disappeared, &changed, &unchanged}) {
    for (auto& c : *group) out.push_back(std::move(c));
  }
  return out;
}

}  // namespace perfsage::app

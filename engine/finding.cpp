#include "engine/finding.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>

#include "engine/error.h"
#include "engine/kb/action_map.h"
#include "engine/kb/message_text.h"

namespace perfsage::engine {
namespace {

// Pairs "name" value "name" value ... from a multislot.
std::vector<std::pair<std::string, clips::Value>> pairs(const clips::Value& mf) {
  std::vector<std::pair<std::string, clips::Value>> out;
  for (size_t i = 0; i + 1 < mf.items.size(); i += 2)
    out.emplace_back(mf.items[i].text, mf.items[i + 1]);
  return out;
}

void set_evidence_value(perfsage::v1::Evidence& e, const clips::Value& v) {
  if (v.is_number()) {
    e.set_number(v.number());
  } else if (v.type == clips::ValueType::Multifield) {
    e.set_text(format_value(v, ""));
  } else {
    e.set_text(v.text);
  }
}

std::string where(const SourcePos& pos) {
  if (pos.file.empty()) return "";
  return pos.file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) + ": ";
}

const char* not_finite(double v) {
  return std::isnan(v) ? "not a number (nan)" : "infinite";
}

}  // namespace

std::string non_finite_number(const perfsage::v1::Finding& f) {
  auto say = [](const std::string& what, double v) { return what + " is " + not_finite(v); };
  if (!std::isfinite(f.estimated_gain_us())) return say("gain", f.estimated_gain_us());
  if (!std::isfinite(f.estimated_gain_share())) return say("share", f.estimated_gain_share());
  for (const auto& e : f.evidence())
    if (!std::isfinite(e.number())) return say("evidence " + e.name(), e.number());
  return "";
}

std::string finding_id(const std::string& pack, const std::string& rule,
                       const std::vector<std::string>& subjects) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&](std::string_view s) {
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    h = (h ^ 0x1f) * 1099511628211ull;  // a separator no name contains
  };
  mix(pack);
  mix(rule);
  for (const auto& s : subjects) mix(s);
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

perfsage::v1::Severity parse_severity(std::string_view name) {
  std::string s(name);
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (s == "critical") return perfsage::v1::SEVERITY_CRITICAL;
  if (s == "high") return perfsage::v1::SEVERITY_HIGH;
  if (s == "medium") return perfsage::v1::SEVERITY_MEDIUM;
  if (s == "low") return perfsage::v1::SEVERITY_LOW;
  if (s == "info") return perfsage::v1::SEVERITY_INFO;
  return perfsage::v1::SEVERITY_UNSPECIFIED;
}

const char* severity_name(perfsage::v1::Severity s) {
  switch (s) {
    case perfsage::v1::SEVERITY_CRITICAL:
      return "critical";
    case perfsage::v1::SEVERITY_HIGH:
      return "high";
    case perfsage::v1::SEVERITY_MEDIUM:
      return "medium";
    case perfsage::v1::SEVERITY_LOW:
      return "low";
    case perfsage::v1::SEVERITY_INFO:
      return "info";
    default:
      return "unspecified";
  }
}

perfsage::v1::Severity severity_from_share(double share) {
  if (share >= 0.05) return perfsage::v1::SEVERITY_HIGH;
  if (share >= 0.03) return perfsage::v1::SEVERITY_MEDIUM;
  return perfsage::v1::SEVERITY_LOW;
}

perfsage::v1::Finding make_finding(const CompiledPack& pack, const clips::Fact& f, double base_us) {
  perfsage::v1::Finding out;
  const std::string id = f.at("rule").text;
  const Rule* rule = pack.pack.rule(id);
  const CompiledRule* compiled = pack.rule(id);
  if (!rule || !compiled) throw EngineError("recommendation for unknown rule '" + id + "'");
  std::map<std::string, clips::Value> vars;
  for (auto& [k, v] : pairs(f.at("vars"))) vars[k] = v;
  const double gain = f.at("gain").number();
  const double share = f.at("share").number();
  // A pack's numbers must be finite: NaN reaches SQLite as NULL and infinity ranks first and
  // prints as "inf s". The rule is wrong, not the run: the pack's error, naming the YAML line.
  auto refuse = [&](const CodeText& code, const std::string& what, double v) {
    throw EngineError(where(code.pos) + "rule " + id + ": " + what + " is " + not_finite(v) +
                      "; a rule's numbers must be finite");
  };
  if (!std::isfinite(gain)) refuse(rule->gain, "gain", gain);
  if (!std::isfinite(share)) refuse(rule->share, "share", share);
  vars["gain"] = clips::Value::of_float(gain);
  std::vector<std::string> subjects;
  for (const auto& s : f.at("subjects").items) subjects.push_back(s.text);
  out.set_id(finding_id(pack.pack.name, id, subjects));
  out.set_pack(pack.pack.name);
  out.set_pack_version(pack.pack.version);
  out.set_rule(id);
  out.set_category(rule->category);
  out.set_title(render_template(compiled->title, vars));
  out.set_message(render_template(compiled->message, vars));
  for (auto& s : subjects) out.add_subjects(std::move(s));
  size_t ev = 0;
  for (auto& [k, v] : pairs(f.at("evidence"))) {
    if (v.is_number() && !std::isfinite(v.number()))
      refuse(ev < rule->evidence.size() ? rule->evidence[ev].second : rule->when, "evidence " + k,
             v.number());
    ++ev;
    auto* e = out.add_evidence();
    e->set_name(k);
    e->set_unit(evidence_unit(k));
    set_evidence_value(*e, v);
  }
  double gain_share = 0;
  if (share >= 0)
    gain_share = share;
  else if (rule->gain.present() && base_us > 0)
    gain_share = gain / base_us;
  if (!std::isfinite(gain_share))
    refuse(rule->gain, "gain / base (" + std::to_string(base_us) + " us)", gain_share);
  if (rule->gain.present()) out.set_estimated_gain_us(gain);
  out.set_estimated_gain_share(gain_share);
  auto severity =
      rule->severity != "auto" ? parse_severity(rule->severity) : severity_from_share(gain_share);
  // A share without a time gain on a run without timing (a graph alone) is a structural
  // estimate: it never proves a large loss, so an automatic severity stops at medium.
  if (rule->severity == "auto" && !rule->gain.present() && base_us <= 0 &&
      severity > perfsage::v1::SEVERITY_MEDIUM)
    severity = perfsage::v1::SEVERITY_MEDIUM;
  out.set_severity(severity);
  if (compiled->action) *out.mutable_action() = build_action(*compiled->action, vars);
  for (const auto& r : rule->references) out.add_references(r);
  for (const auto& t : rule->tags) out.add_tags(t);
  return out;
}

size_t rank_findings(std::vector<perfsage::v1::Finding>& findings) {
  std::stable_sort(findings.begin(), findings.end(), [](const auto& a, const auto& b) {
    if (a.severity() != b.severity()) return a.severity() > b.severity();
    if (a.estimated_gain_us() != b.estimated_gain_us())
      return a.estimated_gain_us() > b.estimated_gain_us();
    return a.id() < b.id();
  });
  std::set<std::string> seen;
  size_t before = findings.size();
  findings.erase(std::remove_if(findings.begin(), findings.end(),
                                [&](const auto& f) { return !seen.insert(f.id()).second; }),
                 findings.end());
  return before - findings.size();
}

}  // namespace perfsage::engine

#include "engine/evaluator.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

#include "engine/clips/environment.h"
#include "engine/error.h"
#include "engine/fact_prefetch.h"
#include "engine/kb/format.h"
#include "store/json_text.h"

namespace perfsage::engine {
namespace {

int severity_rank(const std::string& s) {
  static const char* order[] = {"critical", "high", "medium", "low", "info"};
  for (int i = 0; i < 5; ++i)
    if (s == order[i]) return i;
  return 5;
}

std::string action_json(const Action& a, const std::map<std::string, clips::Value>& vars) {
  std::string out = "{\"kind\":";
  store::append_json_string(out, a.kind);
  for (const auto& p : a.params) {
    out += ",";
    store::append_json_string(out, p.key);
    out += ":";
    if (p.kind == ActionParam::Kind::number) {
      out += p.text;
    } else if (p.kind == ActionParam::Kind::string) {
      store::append_json_string(out, render_template(p.text, vars));
    } else {
      out += "[";
      for (size_t i = 0; i < p.items.size(); ++i) {
        if (i) out += ",";
        store::append_json_string(out, render_template(p.items[i], vars));
      }
      out += "]";
    }
  }
  return out + "}";
}

// Pairs "name" value "name" value ... from a multislot.
std::vector<std::pair<std::string, clips::Value>> pairs(const clips::Value& mf) {
  std::vector<std::pair<std::string, clips::Value>> out;
  for (size_t i = 0; i + 1 < mf.items.size(); i += 2)
    out.emplace_back(mf.items[i].text, mf.items[i + 1]);
  return out;
}

store::Recommendation to_recommendation(const CompiledPack& pack, const clips::Fact& f,
                                        double ref_time_us) {
  store::Recommendation rec;
  const std::string id = f.at("rule").text;
  const Rule* rule = pack.pack.rule(id);
  const CompiledRule* compiled = pack.rule(id);
  if (!rule || !compiled) throw EngineError("recommendation for unknown rule '" + id + "'");
  std::map<std::string, clips::Value> vars;
  for (auto& [k, v] : pairs(f.at("vars"))) vars[k] = v;
  double gain = f.at("gain").number();
  double share = f.at("share").number();
  vars["gain"] = clips::Value::of_float(gain);
  rec.pack = pack.pack.name;
  rec.pack_version = pack.pack.version;
  rec.rule = id;
  rec.category = rule->category;
  rec.title = render_template(rule->title.empty() ? id : rule->title, vars);
  rec.message = render_template(compiled->message, vars);
  for (const auto& s : f.at("subjects").items) rec.subjects.push_back(s.text);
  rec.evidence_json = "{";
  bool first = true;
  for (auto& [k, v] : pairs(f.at("evidence"))) {
    if (!first) rec.evidence_json += ",";
    first = false;
    store::append_json_string(rec.evidence_json, k);
    rec.evidence_json += ":" + json_value(v);
  }
  rec.evidence_json += "}";
  if (rule->gain.present()) rec.gain_us = gain;
  if (share >= 0)
    rec.gain_share = share;
  else if (rule->gain.present() && ref_time_us > 0)
    rec.gain_share = gain / ref_time_us;
  rec.severity =
      rule->severity != "auto" ? rule->severity : severity_from_share(rec.gain_share.value_or(0.0));
  if (compiled->action) rec.action_json = action_json(*compiled->action, vars);
  rec.references = rule->references;
  return rec;
}

// A pack without applies_to, or a run of unknown device, is always evaluated.
bool applies_to_device(const CompiledPack& pack, const std::string& device) {
  const auto& applies = pack.pack.applies_to;
  return applies.empty() || device == "unknown" || device.empty() ||
         std::find(applies.begin(), applies.end(), device) != applies.end();
}

}  // namespace

std::string severity_from_share(double share) {
  if (share >= 0.05) return "high";
  if (share >= 0.03) return "medium";
  return "low";
}

void rank(std::vector<store::Recommendation>& recs) {
  std::stable_sort(recs.begin(), recs.end(), [](const auto& a, const auto& b) {
    int sa = severity_rank(a.severity), sb = severity_rank(b.severity);
    if (sa != sb) return sa < sb;
    return a.gain_us.value_or(0) > b.gain_us.value_or(0);
  });
  std::set<std::string> seen;
  std::vector<store::Recommendation> out;
  for (auto& r : recs) {
    std::string key = r.pack + "\n" + r.rule + "\n" + store::json_string_array(r.subjects);
    if (seen.insert(key).second) out.push_back(std::move(r));
  }
  recs = std::move(out);
}

PackEvaluation evaluate_pack(const CompiledPack& pack, const FactSource& source, double ref_time_us,
                             const std::string& device, const Budget& budget) {
  PackEvaluation out;
  auto start = std::chrono::steady_clock::now();
  auto& res = out.result;
  res.pack = pack.pack.name;
  res.version = pack.pack.version;
  auto finish = [&] {
    res.elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  };
  if (!pack.valid) {
    res.status = "error";
    res.error = pack.error.empty() ? "pack did not compile" : pack.error;
    finish();
    return out;
  }
  if (!applies_to_device(pack, device)) {
    res.status = "skipped";
    res.error = "applies to other devices than '" + device + "'";
    finish();
    return out;
  }
  try {
    clips::Environment env;
    auto errors = env.load(pack.constructs);
    if (!errors.empty()) throw EngineError("constructs did not load: " + errors[0].text);
    env.reset();
    // Fact queries are the host's trusted SQL, not pack code: they run before the pack's budget
    // starts, so a big run's query time is never charged to (or aborts) the pack.
    std::vector<std::pair<void*, std::vector<facts::SlotValues>>> batches;
    for (const auto& name : pack.pack.uses)
      batches.emplace_back(env.find_template(name), source(*facts::find_fact_type(name)));
    env.start_budget(budget);
    bool exhausted = false;
    for (const auto& [tmpl, facts_of_type] : batches) {
      for (const auto& fact : facts_of_type) {
        env.assert_fact(tmpl, fact);
        if (env.budget_exhausted()) {
          exhausted = true;
          break;
        }
      }
      if (exhausted) break;
    }
    clips::RunOutcome outcome;
    if (exhausted) {
      outcome.status = clips::RunStatus::time_exceeded;
      outcome.detail = env.budget_detail() + " while asserting facts";
    } else {
      outcome = env.run();
    }
    res.fired = outcome.fired;
    if (outcome.status == clips::RunStatus::error) {
      res.status = "error";
      res.error = outcome.detail;
    } else if (outcome.status != clips::RunStatus::ok) {
      res.status = "budget_exceeded";
      res.error = outcome.detail;
    } else {
      res.status = "ok";
      for (const auto& f : env.facts("recommendation"))
        out.recommendations.push_back(to_recommendation(pack, f, ref_time_us));
      auto found = static_cast<int64_t>(out.recommendations.size());
      rank(out.recommendations);
      out.duplicates = found - static_cast<int64_t>(out.recommendations.size());
    }
  } catch (const std::exception& e) {
    res.status = "error";
    res.error = e.what();
    out.recommendations.clear();
  }
  if (res.status != "ok") spdlog::warn("pack {}: {}: {}", res.pack, res.status, res.error);
  finish();
  return out;
}

Evaluation evaluate(store::Database& db, int64_t run_id, const PackSet& packs, const Budget& budget,
                    unsigned fact_threads) {
  Evaluation ev;
  // The run fact gives the device (which packs apply) and the reference time; it is queried
  // first and then served to the packs like every other fact type.
  const auto& run_type = *facts::find_fact_type("run");
  std::vector<facts::SlotValues> run = facts::query_facts(db, run_id, run_type);
  double ref_time = 0, base = 0;
  std::string device = "unknown";
  if (!run.empty())
    for (const auto& [slot, value] : run[0]) {
      if (slot == "ref_time_us") ref_time = value.number();
      if (slot == "base_us") base = value.number();
      if (slot == "device") device = value.text;
    }
  if (base > 0) ref_time = base;  // default shares are of the run's base
  // Several packs use the same fact types (op, kernel, ...): each is queried once per run, and
  // the queries of all packs that will run are spread over two read connections.
  std::vector<const facts::FactType*> needed;
  std::set<std::string> seen = {run_type.name};
  for (const auto& pack : packs.packs) {
    if (!pack.valid || !applies_to_device(pack, device)) continue;
    for (const auto& name : pack.pack.uses)
      if (const auto* t = facts::find_fact_type(name); t && seen.insert(name).second)
        needed.push_back(t);
  }
  auto fetched = prefetch_facts(db, run_id, needed, fact_threads);
  fetched[run_type.name].facts = std::move(run);
  // Packs that run only use prefetched types (a valid pack's `uses` are registered types).
  FactSource source = [&](const facts::FactType& t) {
    const FactResult& r = fetched.at(t.name);
    if (r.error) std::rethrow_exception(r.error);
    return r.facts;
  };
  for (const auto& pack : packs.packs) {
    auto pe = evaluate_pack(pack, source, ref_time, device, budget);
    spdlog::debug("pack {}: {} in {:.1f} ms, {} rules fired", pe.result.pack, pe.result.status,
                  pe.result.elapsed_ms, pe.result.fired);
    ev.packs.push_back(std::move(pe.result));
    for (auto& r : pe.recommendations) ev.recommendations.push_back(std::move(r));
  }
  rank(ev.recommendations);
  return ev;
}

}  // namespace perfsage::engine

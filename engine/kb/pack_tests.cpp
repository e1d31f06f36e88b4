#include "engine/kb/pack_tests.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/evaluator.h"
#include "engine/facts/registry.h"
#include "engine/kb/compiler.h"
#include "engine/kb/reader.h"
#include "store/database.h"

namespace perfsage::engine {
namespace fs = std::filesystem;
namespace {

struct Failure {
  std::string text;
};

std::string where(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1);
}

clips::Value yaml_value(const YAML::Node& n, const std::string& file) {
  Scalar s = scalar_from_yaml(n, file);
  if (s.is_number) {
    bool integral = s.text.find_first_of(".eE") == std::string::npos;
    return integral ? clips::Value::of_int(static_cast<int64_t>(s.number))
                    : clips::Value::of_float(s.number);
  }
  return clips::Value::of_string(s.text);
}

// Reads "key": value from a flat JSON object written by the evaluator.
bool json_field(const std::string& json, const std::string& key, std::string& value,
                bool& is_string) {
  std::string needle = "\"" + key + "\":";
  size_t p = json.find(needle);
  if (p == std::string::npos) return false;
  p += needle.size();
  is_string = p < json.size() && json[p] == '"';
  if (is_string) {
    value.clear();
    for (size_t i = p + 1; i < json.size() && json[i] != '"'; ++i) {
      if (json[i] == '\\' && i + 1 < json.size()) ++i;
      value += json[i];
    }
  } else {
    size_t e = json.find_first_of(",}", p);
    value = json.substr(p, e - p);
  }
  return true;
}

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

// Why a recommendation does not match an expectation ("" = it matches).
std::string mismatch(const YAML::Node& exp, const store::Recommendation& r,
                     const std::string& file) {
  if (exp["rule"].as<std::string>() != r.rule) return "rule";
  if (auto s = exp["subjects"]) {
    std::vector<std::string> want;
    for (const auto& e : s) want.push_back(e.as<std::string>());
    if (want != r.subjects) return "subjects";
  }
  if (auto s = exp["severity"]; s && s.as<std::string>() != r.severity)
    return "severity " + r.severity + " != " + s.as<std::string>();
  if (auto m = exp["message_contains"];
      m && r.message.find(m.as<std::string>()) == std::string::npos)
    return "message '" + r.message + "' lacks '" + m.as<std::string>() + "'";
  if (auto g = exp["gain_min"]; g && r.gain_us.value_or(-1) < g.as<double>())
    return "gain below gain_min";
  if (auto g = exp["gain_max"]; g && r.gain_us.value_or(0) > g.as<double>())
    return "gain above gain_max";
  if (auto g = exp["share_min"]; g && r.gain_share.value_or(-1) < g.as<double>())
    return "share below share_min";
  if (auto g = exp["share_max"]; g && r.gain_share.value_or(0) > g.as<double>())
    return "share above share_max";
  if (auto ev = exp["evidence"]) {
    for (const auto& kv : ev) {
      std::string key = kv.first.as<std::string>(), got;
      bool is_string = false;
      if (!json_field(r.evidence_json, key, got, is_string)) return "evidence lacks '" + key + "'";
      auto want = yaml_value(kv.second, file);
      if (want.is_number() && !is_string) {
        if (!close(want.number(), std::strtod(got.c_str(), nullptr)))
          return "evidence " + key + " = " + got + ", expected " + kv.second.as<std::string>();
      } else if (got != want.text) {
        return "evidence " + key + " = '" + got + "', expected '" + want.text + "'";
      }
    }
  }
  return "";
}

std::string describe(const store::Recommendation& r) {
  std::string s = r.rule + " [";
  for (size_t i = 0; i < r.subjects.size(); ++i) s += (i ? ", " : "") + r.subjects[i];
  return s + "] " + r.severity + ": " + r.message;
}

void run_case(const Pack& pack, const YAML::Node& c, const std::string& file, const Budget& budget,
              CaseResult& result, std::map<std::string, RuleCoverage>& coverage) {
  std::map<std::string, std::string> params;
  if (auto p = c["params"])
    for (const auto& kv : p) params[kv.first.as<std::string>()] = kv.second.as<std::string>();
  std::vector<LoadMessage> msgs;
  CompiledPack compiled = compile_pack(pack, msgs, params);
  if (!compiled.valid) throw Failure{"pack does not compile: " + compiled.error};

  // Facts: inline per type, or a SQL fixture run against an empty store (run id 1).
  std::map<std::string, std::vector<facts::SlotValues>> inline_facts;
  std::unique_ptr<store::Database> db;
  if (auto fx = c["fixture"]) {
    fs::path path = fs::path(file).parent_path() / fx.as<std::string>();
    std::ifstream in(path);
    if (!in) throw Failure{"cannot read fixture " + path.string()};
    std::stringstream sql;
    sql << in.rdbuf();
    db = std::make_unique<store::Database>(":memory:");
    db->exec(sql.str());
  }
  if (auto f = c["facts"]) {
    for (const auto& kv : f) {
      std::string type = kv.first.as<std::string>();
      const auto* ft = facts::find_fact_type(type);
      if (!ft) throw Failure{where(file, kv.first) + ": unknown fact type '" + type + "'"};
      auto& list = inline_facts[type];
      for (const auto& fact : kv.second) {
        std::map<std::string, clips::Value> given;
        for (const auto& sv : fact) {
          std::string slot = sv.first.as<std::string>();
          if (!ft->slot(slot))
            throw Failure{where(file, sv.first) + ": fact type '" + type + "' has no slot '" +
                          slot + "'"};
          try {
            given[slot] = facts::coerce(*ft->slot(slot), yaml_value(sv.second, file));
          } catch (const std::exception& e) {
            throw Failure{where(file, sv.second) + ": " + e.what()};
          }
        }
        facts::SlotValues values;
        for (const auto& s : ft->slots)
          values.emplace_back(s.name, given.count(s.name) ? given[s.name] : facts::slot_default(s));
        list.push_back(std::move(values));
      }
    }
  }
  FactSource source = [&](const facts::FactType& t) {
    if (db) return facts::query_facts(*db, 1, t);
    auto it = inline_facts.find(t.name);
    return it == inline_facts.end() ? std::vector<facts::SlotValues>{} : it->second;
  };
  double ref_time = 0, base = 0;
  std::string device = "unknown";
  for (const auto& run : source(*facts::find_fact_type("run")))
    for (const auto& [slot, v] : run) {
      if (slot == "ref_time_us") ref_time = v.number();
      if (slot == "base_us") base = v.number();
      if (slot == "device") device = v.text;
    }
  if (base > 0) ref_time = base;  // default shares are of the run's base
  auto pe = evaluate_pack(compiled, source, ref_time, device, budget);
  if (pe.result.status != "ok" && pe.result.status != "skipped")
    throw Failure{"pack status " + pe.result.status + ": " + pe.result.error};

  if (pe.duplicates > 0)
    result.failures.push_back(std::to_string(pe.duplicates) +
                              " finding(s) repeated a finding of the same rule and subjects: "
                              "the rule fires more than once for one cause");
  std::vector<bool> used(pe.recommendations.size(), false);
  std::set<std::string> fired;
  for (const auto& r : pe.recommendations) fired.insert(r.rule), result.fired.push_back(r.rule);
  if (auto exp = c["expect"]) {
    for (const auto& e : exp) {
      if (!e["rule"]) {
        result.failures.push_back(where(file, e) + ": expectation without 'rule'");
        continue;
      }
      std::string best;
      bool matched = false;
      for (size_t i = 0; i < pe.recommendations.size() && !matched; ++i) {
        if (used[i]) continue;
        auto why = mismatch(e, pe.recommendations[i], file);
        if (why.empty())
          used[i] = matched = true;
        else if (why != "rule" && best.empty())
          best = why;
      }
      if (!matched)
        result.failures.push_back(where(file, e) + ": expected " + e["rule"].as<std::string>() +
                                  " did not fire" +
                                  (best.empty() ? "" : " as expected (" + best + ")"));
    }
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i])
      result.failures.push_back("unexpected recommendation " + describe(pe.recommendations[i]));
  result.passed = result.failures.empty();
  if (!result.passed) return;
  for (const auto& r : compiled.rules) {
    auto& cov = coverage[r.id];
    if (fired.count(r.id)) {
      ++cov.firing_cases;
      continue;
    }
    bool near_miss = !r.fact_types.empty();
    for (const auto& t : r.fact_types) near_miss &= !source(*facts::find_fact_type(t)).empty();
    if (near_miss) ++cov.quiet_cases;
  }
}

}  // namespace

bool TestReport::ok() const {
  if (!problems.empty()) return false;
  for (const auto& c : cases)
    if (!c.passed) return false;
  return true;
}

std::string TestReport::str() const {
  std::ostringstream o;
  size_t passed = 0;
  for (const auto& c : cases) passed += c.passed;
  o << pack << ": " << passed << "/" << cases.size() << " cases passed\n";
  // Per rule: in how many passing cases it fired and stayed silent (both must be > 0).
  for (const auto& c : coverage)
    o << "  rule " << c.rule << ": fires in " << c.firing_cases << ", silent in " << c.quiet_cases
      << "\n";
  for (const auto& c : cases) {
    if (c.passed) continue;
    o << "  FAIL " << c.file << ": " << c.name << "\n";
    for (const auto& f : c.failures) o << "    " << f << "\n";
  }
  for (const auto& p : problems) o << "  PROBLEM " << p << "\n";
  return o.str();
}

TestReport run_pack_tests(const Pack& pack, const Budget& budget) {
  TestReport report;
  report.pack = pack.name;
  std::map<std::string, RuleCoverage> coverage;
  for (const auto& r : pack.rules)
    if (r.enabled) coverage[r.id].rule = r.id;
  if (pack.test_files.empty()) report.problems.push_back("no tests/*.yaml");
  for (const auto& path : pack.test_files) {
    YAML::Node root;
    try {
      root = YAML::LoadFile(path.string());
    } catch (const YAML::Exception& e) {
      report.problems.push_back(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " +
                                e.msg);
      continue;
    }
    auto cases = root["cases"];
    if (!cases || !cases.IsSequence()) {
      report.problems.push_back(path.string() + ": needs a 'cases' list");
      continue;
    }
    for (const auto& c : cases) {
      CaseResult result;
      result.file = path.string();
      result.name = c["name"] ? c["name"].as<std::string>() : where(path.string(), c);
      try {
        run_case(pack, c, path.string(), budget, result, coverage);
      } catch (const Failure& f) {
        result.failures.push_back(f.text);
      } catch (const std::exception& e) {
        result.failures.push_back(e.what());
      }
      result.passed = result.failures.empty();
      report.cases.push_back(std::move(result));
    }
  }
  for (auto& [id, cov] : coverage) {
    cov.rule = id;
    if (cov.firing_cases == 0)
      report.problems.push_back("rule " + id + " has no passing case where it fires");
    if (cov.quiet_cases == 0)
      report.problems.push_back(
          "rule " + id +
          " has no passing case where it stays silent on facts of the types it matches");
    report.coverage.push_back(cov);
  }
  return report;
}

}  // namespace perfsage::engine

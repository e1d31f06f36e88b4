#include "engine/kb/pack_tests.h"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "engine/error.h"
#include "engine/evaluator.h"
#include "engine/facts/registry.h"
#include "engine/finding.h"
#include "engine/kb/compiler.h"
#include "engine/kb/fixture.h"
#include "engine/kb/message_text.h"
#include "engine/kb/reader.h"
#include "engine/pack_child.h"
#include "store/count_text.h"
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

bool close(double a, double b) {
  return std::fabs(a - b) <= 1e-6 * std::max({1.0, std::fabs(a), std::fabs(b)});
}

const perfsage::v1::Evidence* find_evidence(const perfsage::v1::Finding& f, const std::string& k) {
  for (const auto& e : f.evidence())
    if (e.name() == k) return &e;
  return nullptr;
}

std::string text_of(const YAML::Node& n) {
  return n.IsScalar() ? n.as<std::string>() : std::string("(not a scalar)");
}

// Why a finding does not match an expectation ("" = it matches).
std::string mismatch(const YAML::Node& exp, const perfsage::v1::Finding& r,
                     const std::string& file) {
  if (text_of(exp["rule"]) != r.rule()) return "rule";
  if (auto s = exp["subjects"]) {
    std::vector<std::string> want;
    if (s.IsSequence())
      for (const auto& e : s) want.push_back(text_of(e));
    if (want != std::vector<std::string>(r.subjects().begin(), r.subjects().end()))
      return "subjects";
  }
  if (auto s = exp["severity"]; s && parse_severity(text_of(s)) != r.severity())
    return std::string("severity ") + severity_name(r.severity()) + " != " + text_of(s);
  if (auto m = exp["message_contains"]; m && r.message().find(text_of(m)) == std::string::npos)
    return "message '" + r.message() + "' lacks '" + text_of(m) + "'";
  if (auto g = exp["gain_min"]; g && r.estimated_gain_us() < yaml_value(g, file).number())
    return "gain below gain_min";
  if (auto g = exp["gain_max"]; g && r.estimated_gain_us() > yaml_value(g, file).number())
    return "gain above gain_max";
  if (auto g = exp["share_min"]; g && r.estimated_gain_share() < yaml_value(g, file).number())
    return "share below share_min";
  if (auto g = exp["share_max"]; g && r.estimated_gain_share() > yaml_value(g, file).number())
    return "share above share_max";
  if (auto ev = exp["evidence"]; ev && ev.IsMap()) {
    for (const auto& kv : ev) {
      std::string key = text_of(kv.first);
      const auto* got = find_evidence(r, key);
      if (!got) return "evidence lacks '" + key + "'";
      auto want = yaml_value(kv.second, file);
      if (want.is_number() && got->value_case() == perfsage::v1::Evidence::kNumber) {
        if (!close(want.number(), got->number()))
          return "evidence " + key + " = " + format_number(got->number()) + ", expected " +
                 text_of(kv.second);
      } else {
        std::string have = got->value_case() == perfsage::v1::Evidence::kNumber
                               ? format_number(got->number())
                               : got->text();
        if (have != want.text)
          return "evidence " + key + " = '" + have + "', expected '" + want.text + "'";
      }
    }
  }
  return "";
}

std::string describe(const perfsage::v1::Finding& r) {
  std::string s = r.rule() + " [";
  for (int i = 0; i < r.subjects_size(); ++i) s += (i ? ", " : "") + r.subjects(i);
  return s + "] " + severity_name(r.severity()) + ": " + r.message();
}

void run_case(const Pack& pack, const YAML::Node& c, const std::string& file,
              const PackTestOptions& options, CaseResult& result,
              std::map<std::string, RuleCoverage>& coverage) {
  std::map<std::string, ParamOverride> params;
  if (auto p = c["params"]) {
    if (!p.IsMap()) throw Failure{where(file, p) + ": params must be a map name -> value"};
    for (const auto& kv : p)
      params[text_of(kv.first)] = {text_of(kv.second),
                                   {file, kv.second.Mark().line + 1, kv.second.Mark().column + 1}};
  }
  std::vector<LoadMessage> msgs;
  const facts::Catalog& catalog = *options.catalog;
  CompiledPack compiled = compile_pack(pack, msgs, catalog, params);
  if (!compiled.valid) throw Failure{"pack does not compile: " + compiled.error};

  // Facts: inline per type, or a fixture made into a store the way real runs are (run id 1).
  std::map<std::string, std::vector<facts::SlotValues>> inline_facts;
  std::unique_ptr<store::Database> db;
  if (auto fx = c["fixture"]) {
    try {
      db = load_fixture(pack, file, text_of(fx), options);
    } catch (const std::exception& e) {
      throw Failure{where(file, fx) + ": " + e.what()};
    }
  }
  if (auto f = c["facts"]) {
    for (const auto& kv : f) {
      std::string type = kv.first.as<std::string>();
      const auto* ft = catalog.find(type);
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
  double base_us = 0, ref_time = 0;
  std::string device = "unknown";
  for (const auto& run : source(*catalog.find("run")))
    for (const auto& [slot, v] : run) {
      if (slot == "ref_time_us") ref_time = v.number();
      if (slot == "base_us") base_us = v.number();
      if (slot == "device") device = v.text;
    }
  if (base_us <= 0) base_us = ref_time;  // default shares are of the run's base
  // Tested where it will run: a pack from outside the built-in folder in a child process.
  auto pe = compiled.pack.trusted
                ? evaluate_pack(compiled, source, base_us, device, options.budget)
                : evaluate_pack_in_child(compiled, source, base_us, device, options.budget);
  if (pe.result.status != "ok" && pe.result.status != "skipped")
    throw Failure{"pack status " + pe.result.status + ": " + pe.result.error};

  if (pe.duplicates > 0)
    result.failures.push_back(store::count_text(pe.duplicates, "finding") +
                              " repeated a finding of the same rule and subjects: "
                              "the rule fires more than once for one cause");
  std::vector<bool> used(pe.findings.size(), false);
  std::set<std::string> fired;
  for (const auto& r : pe.findings) fired.insert(r.rule()), result.fired.push_back(r.rule());
  if (auto exp = c["expect"]) {
    for (const auto& e : exp) {
      if (!e["rule"]) {
        result.failures.push_back(where(file, e) + ": expectation without 'rule'");
        continue;
      }
      std::string best;
      bool matched = false;
      for (size_t i = 0; i < pe.findings.size() && !matched; ++i) {
        if (used[i]) continue;
        auto why = mismatch(e, pe.findings[i], file);
        if (why.empty())
          used[i] = matched = true;
        else if (why != "rule" && best.empty())
          best = why;
      }
      if (!matched)
        result.failures.push_back(where(file, e) + ": expected " + text_of(e["rule"]) +
                                  " did not fire" +
                                  (best.empty() ? "" : " as expected (" + best + ")"));
    }
  }
  for (size_t i = 0; i < used.size(); ++i)
    if (!used[i]) result.failures.push_back("unexpected finding " + describe(pe.findings[i]));
  result.passed = result.failures.empty();
  if (!result.passed) return;
  for (const auto& r : compiled.rules) {
    auto& cov = coverage[r.id];
    if (fired.count(r.id)) {
      ++cov.firing_cases;
      continue;
    }
    bool near_miss = !r.fact_types.empty();
    for (const auto& t : r.fact_types) near_miss &= !source(*catalog.find(t)).empty();
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

namespace {

// Runs the cases of one tests file; anything wrong with the file itself is a problem, never an
// exception out of here (tests files are as untrusted as the pack).
void run_test_file(const Pack& pack, const fs::path& path, const PackTestOptions& options,
                   TestReport& report, std::map<std::string, RuleCoverage>& coverage) {
  std::error_code ec;
  auto size = fs::file_size(path, ec);
  if (ec || size > kMaxPackFileBytes) {
    report.problems.push_back(path.string() + ": not readable or larger than " +
                              std::to_string(kMaxPackFileBytes) + " bytes");
    return;
  }
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  const std::string yaml = text.str();
  if (yaml.size() >= 2 &&
      ((yaml[0] == '\xff' && yaml[1] == '\xfe') || (yaml[0] == '\xfe' && yaml[1] == '\xff'))) {
    report.problems.push_back(path.string() + ": UTF-16 text; tests files are UTF-8");
    return;
  }
  YAML::Node root;
  try {
    root = YAML::Load(yaml);
  } catch (const YAML::Exception& e) {
    report.problems.push_back(path.string() + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
    return;
  }
  if (!root.IsMap() || !root["cases"] || !root["cases"].IsSequence()) {
    report.problems.push_back(path.string() + ": needs a 'cases' list");
    return;
  }
  for (const auto& c : root["cases"]) {
    CaseResult result;
    result.file = path.string();
    result.name = c.IsMap() && c["name"] ? text_of(c["name"]) : where(path.string(), c);
    try {
      if (!c.IsMap()) throw Failure{where(path.string(), c) + ": a case must be a map"};
      run_case(pack, c, path.string(), options, result, coverage);
    } catch (const Failure& f) {
      result.failures.push_back(f.text);
    } catch (const std::exception& e) {
      result.failures.push_back(where(path.string(), c) + ": " + e.what());
    }
    result.passed = result.failures.empty();
    report.cases.push_back(std::move(result));
  }
}

}  // namespace

TestReport run_pack_tests(const Pack& pack, const PackTestOptions& options) {
  if (!options.catalog) throw EngineError("internal: pack tests without a fact catalog");
  TestReport report;
  report.pack = pack.name;
  std::map<std::string, RuleCoverage> coverage;
  for (const auto& r : pack.rules)
    if (r.enabled) coverage[r.id].rule = r.id;
  if (pack.test_files.empty()) report.problems.push_back("no tests/*.yaml");
  for (const auto& path : pack.test_files) run_test_file(pack, path, options, report, coverage);
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

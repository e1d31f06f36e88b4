// Drives perfsage commands in-process and parses their JSON output.
#pragma once

#include <google/protobuf/util/json_util.h>

#include <sstream>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "engine/finding.h"
#include "perfsage/v1/kb.pb.h"
#include "perfsage/v1/report.pb.h"
#include "test_support.h"

namespace perfsage::test {

struct CommandResult {
  int code = 0;
  std::string out, err;
};

inline CommandResult run_command(const std::string& cmd, const std::vector<std::string>& args) {
  std::ostringstream out, err;
  CommandResult r;
  if (cmd == "analyze") r.code = cli::run_analyze(args, out, err);
  if (cmd == "ingest") r.code = cli::run_ingest(args, out, err);
  if (cmd == "kb") r.code = cli::run_kb(args, out, err);
  if (cmd == "query") r.code = cli::run_query(args, out, err);
  if (cmd == "compare") r.code = cli::run_compare(args, out, err);
  r.out = out.str();
  r.err = err.str();
  return r;
}

template <class M>
M parse_json(const std::string& json) {
  M message;
  auto status = google::protobuf::util::JsonStringToMessage(json, &message);
  INFO(json.substr(0, 2000));
  REQUIRE(status.ok());
  return message;
}

inline perfsage::v1::AnalysisReport parse_report(const std::string& json) {
  perfsage::v1::AnalysisReport report;
  auto status = google::protobuf::util::JsonStringToMessage(json, &report);
  INFO(json.substr(0, 2000));
  REQUIRE(status.ok());
  return report;
}

// Analyzes the inputs with --format json and returns the parsed report.
inline perfsage::v1::AnalysisReport analyze_json(std::vector<std::string> args) {
  args.push_back("--format");
  args.push_back("json");
  auto r = run_command("analyze", args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return parse_report(r.out);
}

inline std::vector<const perfsage::v1::Finding*> findings(
    const perfsage::v1::AnalysisReport& report, const std::string& pack,
    const std::string& rule = "") {
  std::vector<const perfsage::v1::Finding*> out;
  for (const auto& r : report.recommendations()) {
    if (r.pack() == pack && (rule.empty() || r.rule() == rule)) out.push_back(&r);
  }
  return out;
}

inline bool has_subject(const perfsage::v1::Finding& r, const std::string& subject) {
  for (const auto& s : r.subjects()) {
    if (s == subject) return true;
  }
  return false;
}

inline bool any_subject(const std::vector<const perfsage::v1::Finding*>& recs,
                        const std::string& subject) {
  for (const auto* r : recs) {
    if (has_subject(*r, subject)) return true;
  }
  return false;
}

// The severity's name ("high", ...), to compare with names as packs write them.
inline std::string sev(const perfsage::v1::Finding& r) {
  return engine::severity_name(r.severity());
}

inline const perfsage::v1::Evidence* find_evidence(const perfsage::v1::Finding& r,
                                                   const std::string& key) {
  for (const auto& e : r.evidence())
    if (e.name() == key) return &e;
  return nullptr;
}
inline double evidence_number(const perfsage::v1::Finding& r, const std::string& key) {
  const auto* e = find_evidence(r, key);
  INFO("evidence " << key);
  REQUIRE(e);
  REQUIRE(e->value_case() == perfsage::v1::Evidence::kNumber);
  return e->number();
}
inline std::string evidence_text(const perfsage::v1::Finding& r, const std::string& key) {
  const auto* e = find_evidence(r, key);
  INFO("evidence " << key);
  REQUIRE(e);
  return e->text();
}

}  // namespace perfsage::test

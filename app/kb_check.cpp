#include "app/kb_check.h"

#include <yaml-cpp/yaml.h>

#include <set>

#include "app/knowledge.h"
#include "engine/kb/compiler.h"
#include "engine/kb/reader.h"

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

// Rule ids named by `rule:` in the expectations of the pack's tests files.
std::set<std::string> expected_rules(const engine::Pack& pack) {
  std::set<std::string> out;
  for (const auto& file : pack.test_files) {
    try {
      YAML::Node root = YAML::LoadFile(file.string());
      if (!root.IsMap() || !root["cases"] || !root["cases"].IsSequence()) continue;
      for (const auto& c : root["cases"]) {
        if (!c.IsMap() || !c["expect"] || !c["expect"].IsSequence()) continue;
        for (const auto& e : c["expect"])
          if (e.IsMap() && e["rule"] && e["rule"].IsScalar())
            out.insert(e["rule"].as<std::string>());
      }
    } catch (const YAML::Exception&) {
      // A broken tests file is `kb test`'s to report.
    }
  }
  return out;
}

void lint(const engine::Pack& p, std::vector<engine::LoadMessage>& out) {
  auto say = [&](engine::LoadCode code, const engine::SourcePos& pos, const std::string& item,
                 const std::string& text) {
    out.push_back({code, pos.file.empty() ? p.file.string() : pos.file, pos.line, pos.column,
                   p.name, item, text});
  };
  if (p.description.empty()) say(engine::LoadCode::lint_header, p.pos, "", "no description");
  if (p.license.empty()) say(engine::LoadCode::lint_header, p.pos, "", "no license");
  if (p.maintainers.empty()) say(engine::LoadCode::lint_header, p.pos, "", "no maintainers");
  if (p.test_files.empty())
    say(engine::LoadCode::lint_no_tests, p.pos, "", "no tests/*.yaml beside pack.yaml");
  for (const auto& prm : p.params)
    if (prm.doc.empty())
      say(engine::LoadCode::lint_param_no_doc, prm.value.pos, "param " + prm.name,
          "param has no doc (write {default: ..., doc: \"...\"})");
  auto tested = expected_rules(p);
  for (const auto& r : p.rules) {
    const std::string item = "rule " + r.id;
    if (!r.enabled) continue;
    if (!p.test_files.empty() && !tested.count(r.id))
      say(engine::LoadCode::lint_rule_untested, r.pos, item, "no test case expects this rule");
    if (r.evidence.empty())
      say(engine::LoadCode::lint_no_evidence, r.pos, item, "no evidence: show the numbers");
    if (!r.action && r.no_action.empty())
      say(engine::LoadCode::lint_no_action, r.pos, item,
          "no action: propose a fix (at least a code_hint), or say in no_action why there is none");
    if (r.severity == "auto" && !r.gain.present() && !r.share.present())
      say(engine::LoadCode::lint_no_gain, r.pos, item,
          "severity auto without a gain or a share is always low: give one or a fixed severity");
    if (r.references.empty())
      say(engine::LoadCode::lint_no_references, r.pos, item, "no references");
  }
}

}  // namespace

PackCheck validate_pack_dir(const fs::path& dir) {
  PackCheck out;
  out.dir = dir;
  auto pack = engine::read_pack(dir, out.messages);
  if (pack) {
    out.pack = pack->name;
    out.version = pack->version;
    engine::compile_pack(*pack, out.messages, *fact_catalog());
  }
  out.valid = pack && !engine::has_errors(out.messages);
  return out;
}

PackCheck lint_pack_dir(const fs::path& dir) {
  PackCheck out = validate_pack_dir(dir);
  std::vector<engine::LoadMessage> ignored;
  if (auto pack = engine::read_pack(dir, ignored)) lint(*pack, out.messages);
  return out;
}

perfsage::v1::PackCheck to_proto(const PackCheck& check) {
  perfsage::v1::PackCheck out;
  out.set_path(check.dir.string());
  out.set_pack(check.pack);
  out.set_version(check.version);
  out.set_valid(check.valid);
  for (const auto& m : check.messages) {
    auto* p = out.add_messages();
    p->set_code(engine::code_name(m.code));
    p->set_severity(m.error() ? "error" : "warning");
    p->set_file(m.file);
    p->set_line(m.line);
    p->set_column(m.column);
    p->set_pack(m.pack);
    p->set_item(m.item);
    p->set_text(m.text);
  }
  return out;
}

}  // namespace perfsage::app

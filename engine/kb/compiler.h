// Compiles a pack model into CLIPS constructs: deftemplates for the fact types it uses,
// the recommendation template, and one defrule per enabled rule whose RHS asserts a
// recommendation fact. Every rule is validated in a sandboxed scratch environment first
// (CLIPS loads partially on errors); CLIPS parse errors are mapped back to the YAML line.
//
//   std::vector<LoadMessage> msgs;
//   CompiledPack c = compile_pack(pack, msgs, catalog, {{"min_task_us", "50"}});
//   if (!c.valid) ...;  // msgs say why, with file:line:column
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/facts/registry.h"
#include "engine/kb/load_result.h"
#include "engine/kb/pack.h"

namespace perfsage::engine {

namespace clips {
class PristineEnvironment;
}

struct CompiledRule {
  std::string id;
  std::vector<std::string> vars;        // variables carried to C++ for message/action templates
  std::vector<std::string> fact_types;  // fact types its `when` matches
  std::string title;                    // title template with ${...} resolved
  std::string message;                  // message template with ${...} resolved
  std::optional<Action> action;         // action with ${...} resolved in its texts
};

struct CompiledPack {
  Pack pack;                           // with param overrides applied
  std::string constructs;              // complete CLIPS text for a fresh environment
  std::vector<CompiledRule> rules;     // enabled rules, in pack order
  std::vector<facts::FactType> types;  // the fact types it uses, as compiled against
  bool valid = false;
  std::string error;  // first error, when not valid
  // The environment the constructs were checked in, when it holds exactly `constructs` (a
  // valid pack): the first evaluation in a process uses it instead of building its own.
  // Shared by copies of this pack; taken once per process (clips/pristine_environment.h).
  std::shared_ptr<clips::PristineEnvironment> pristine;

  const CompiledRule* rule(const std::string& id) const;
  const facts::FactType* fact_type(std::string_view name) const;  // one it uses
};

// The deftemplate of the facts compiled rules assert.
const char* recommendation_template();

// Param overrides are given as text (from config or tests), typed like YAML scalars, and must
// have the type of the param's default (a number stays a number): a mismatch is an error at
// the override's position.
// `catalog` gives the fact types a pack may use.
CompiledPack compile_pack(const Pack& pack, std::vector<LoadMessage>& messages,
                          const facts::Catalog& catalog,
                          const std::map<std::string, ParamOverride>& param_overrides = {});

}  // namespace perfsage::engine

// Maps a pack's `action:` block onto the typed perfsage.v1.Action message: `kind` names the
// message (fusion_switch -> FusionSwitchAction, ...), every other key must be a field of it.
// Checked when the pack compiles (unknown keys and wrong shapes are load errors at the
// action's position); filled when a rule fires, with {?var} templates rendered.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/clips/value.h"
#include "engine/kb/pack.h"
#include "perfsage/v1/action.pb.h"

namespace perfsage::engine {

// The action kinds a pack may name: the fields of perfsage.v1.Action's `detail` oneof, in
// declaration order. The proto is the contract between packs and actions/ (each kind there is
// registered under its field's name), so the engine reads the kinds from it rather than from
// actions/, which it must not depend on.
const std::vector<std::string>& action_kind_names();

// "" when the action fits its message; otherwise what is wrong, naming the key.
std::string check_action(const Action& action);

// The typed action with templates rendered from the rule's variables.
perfsage::v1::Action build_action(const Action& action,
                                  const std::map<std::string, clips::Value>& vars);

}  // namespace perfsage::engine

// The fusion_switch action kind: an Ascend fusion switch file that turns named graph-fusion and
// UB-fusion passes on or off, in both documented forms (formats.md §11):
//   JSON:  {"Switch": {"GraphFusion": {"<Pass>": "on"|"off", ...}, "UBFusion": {...}}}
//   lines: <Pass>:on|off, one per line (no class)
// and the options that make a compiler use it (ATC/AOE --fusion_switch_file, TorchAir's
// config.fusion_config.fusion_switch_file, MindSpore Lite's fusion_switch_config_file_path,
// the GE option ge.fusionSwitchFile).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

namespace perfsage::actions {

// Switch settings by class; "ALL" is an ordinary key (it switches a whole class).
struct FusionSwitches {
  std::map<std::string, bool> graph, ub;
  std::map<std::string, bool> unclassified;  // line-form entries: the form has no class
  bool empty() const { return graph.empty() && ub.empty() && unclassified.empty(); }
};

// Reads either form (a first non-blank character '{' means JSON). Throws std::runtime_error
// naming `file`, the line (and column for JSON) and what was expected.
FusionSwitches parse_fusion_switch(std::string_view text, const std::string& file);
std::string render_fusion_switch_json(const FusionSwitches& s);
std::string render_fusion_switch_lines(const FusionSwitches& s);

enum class FusionClass { unknown, graph, ub };
// The class of each fusion pass the run knows about: from fusion_result.json statistics
// (graph_fusion / ub_fusion) and the fusion candidates the pattern analyzer found.
std::map<std::string, FusionClass> fusion_pass_classes(store::Database& db, int64_t run_id);
// The fusion switch file a GE graph of the run was compiled with (graph option
// ge.fusionSwitchFile), when one is named.
std::optional<std::string> compiled_fusion_switch_file(store::Database& db, int64_t run_id);

// One finding's request.
struct FusionSwitchRequest {
  std::vector<std::string> disable, enable;
  std::string scope;  // GraphFusion (graph) | UBFusion (ub) | both | "" (by the pass's class)
  std::string finding;
};

struct FusionSwitchPlan {
  FusionSwitches switches;            // the base file's settings with the requests applied
  std::vector<std::string> notes;     // classes guessed or unknown, conflicts, documented caveats
  std::vector<std::string> findings;  // the findings whose requests are in the file
};

// Merges the requests over `base` (the user's current file, when known). A pass whose class is
// neither given nor known goes into the line form only, with a note. Two findings asking for
// opposite switches of one pass: the first wins and the conflict is noted.
FusionSwitchPlan plan_fusion_switch(const std::vector<FusionSwitchRequest>& requests,
                                    const std::map<std::string, FusionClass>& classes,
                                    const FusionSwitches& base);

// How to use the file at `path` (one line per tool).
std::vector<std::string> fusion_switch_usage(const std::string& path);

class ActionKind;
// The fusion_switch action kind (actions/kind.h): one fusion switch file per run, over the
// file the graphs were compiled with.
const ActionKind& fusion_switch_kind();

}  // namespace perfsage::actions

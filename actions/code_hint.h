// The code_hint action kind: a change to the user's code, shown and never applied. Where the
// finding's pack knows the location, the hint carries a unified-diff-style suggestion; otherwise
// it is the change in words. Applying a code hint writes the suggestions into the output folder
// (never into the user's code) so that the next run of the job can be judged against it.
#pragma once

#include <string>
#include <vector>

namespace perfsage::actions {

struct CodeHint {
  std::string hint, diff, file;
  std::string finding, title;
};

// Why a diff is not in unified-diff style (---/+++ headers, then @@ hunks of ' ', '+', '-'
// lines), or "" when it is.
std::string unified_diff_problem(const std::string& diff);

// The suggestions as one text: per hint a comment header (finding, title, file) followed by the
// diff, or by the hint as comment lines when there is no diff.
std::string render_code_hints(const std::vector<CodeHint>& hints);

class ActionKind;
// The code_hint action kind (actions/kind.h): the suggestions, shown, never applied.
const ActionKind& code_hint_kind();

}  // namespace perfsage::actions

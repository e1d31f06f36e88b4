// The ONNX rewrite passes. Each finds its own matches in the graph (a finding only proposes a
// rewrite; the pass checks that it is exact here) and edits only where every condition holds;
// everything else is reported with the reason. A pass run on its own output finds nothing.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "actions/onnx/graph_edit.h"

namespace perfsage::actions::onnx {

// Where a pass may act and how.
struct PassScope {
  std::set<std::string> nodes;  // display names; empty = every match in the graph
  bool allow_inexact = false;   // apply rewrites that change outputs (else only propose them)
  std::string replacement;      // replace_activation: the activation to use
  std::string pattern;          // replace_activation: the decomposed activation (mish)

  // A match is in scope when the scope names none or names one of its nodes.
  bool covers(const GraphEditor& g, const std::vector<int>& nodes) const;
};

struct MatchNote {
  std::vector<std::string> nodes;  // display names of the nodes of the match
  std::string text;                // what was done, why not, or what would change
  bool exact = true;
};

struct PassResult {
  std::vector<MatchNote> applied;
  std::vector<MatchNote> proposed;  // inexact rewrites left out (allow_inexact not given)
  std::vector<MatchNote> skipped;   // matches that are not exact here, with the reason
};

void remove_identity(GraphEditor& g, const PassScope& scope, PassResult& out);
void remove_dropout(GraphEditor& g, const PassScope& scope, PassResult& out);
void remove_transpose(GraphEditor& g, const PassScope& scope, PassResult& out);
void fold_batchnorm(GraphEditor& g, const PassScope& scope, PassResult& out);
void fuse_matmul_add(GraphEditor& g, const PassScope& scope, PassResult& out);
void remove_cast_round_trip(GraphEditor& g, const PassScope& scope, PassResult& out);
void replace_activation(GraphEditor& g, const PassScope& scope, PassResult& out);

struct RoundNotes;
// Removes two nodes that together compute the identity (z = second(first(x)) = x): readers of z
// read x; `first` goes too unless something else reads its output. deferred: a node involved
// was edited earlier in this round; refused: the reason is in notes.skipped.
enum class PairRemoval { both, second_only, deferred, refused };
PairRemoval remove_inverse_pair(GraphEditor& g, int first, int second, RoundNotes& notes);

// What a round could not apply: reported only by the last round (the one that applied
// nothing), so each match is reported once.
struct RoundNotes {
  std::vector<MatchNote> skipped, proposed;
};

// Runs `round` (which edits nodes not yet touched in it and returns how many matches it
// applied) until a round applies nothing.
template <class Round>
void in_rounds(GraphEditor& g, PassResult& out, Round round) {
  for (;;) {
    RoundNotes notes;
    int applied = round(notes);
    g.commit();
    if (applied == 0) {
      out.skipped.insert(out.skipped.end(), notes.skipped.begin(), notes.skipped.end());
      out.proposed.insert(out.proposed.end(), notes.proposed.begin(), notes.proposed.end());
      return;
    }
  }
}

}  // namespace perfsage::actions::onnx

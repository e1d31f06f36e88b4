// Passes that remove nodes computing the identity: Identity, inference-time Dropout, Transpose
// with the identity permutation, and Transpose pairs whose permutations cancel.
#include <numeric>

#include "actions/onnx/passes.h"

namespace perfsage::actions::onnx {

bool PassScope::covers(const GraphEditor& g, const std::vector<int>& match) const {
  if (nodes.empty()) return true;
  for (int n : match) {
    if (nodes.count(g.node_name(n))) return true;
  }
  return false;
}

namespace {

std::vector<std::string> names_of(const GraphEditor& g, const std::vector<int>& nodes) {
  std::vector<std::string> out;
  for (int n : nodes) out.push_back(g.node_name(n));
  return out;
}

// Removes one single-input node whose output equals its input; false when deferred.
bool remove_passthrough(GraphEditor& g, int i, const std::string& what, PassResult& out,
                        RoundNotes& notes) {
  std::vector<int> involved = {i, g.producer(g.node(i).input(0))};
  for (int c : g.consumers(g.node(i).output(0))) involved.push_back(c);
  if (g.any_touched(involved)) return false;
  if (auto why = g.bypass(i, g.node(i).input(0), g.node(i).output(0))) {
    notes.skipped.push_back({{g.node_name(i)}, *why});
    return false;
  }
  out.applied.push_back({{g.node_name(i)}, what});
  return true;
}

// The permutation a Transpose applies: its `perm`, or the reversed axes when absent (which
// needs the input's rank).
std::optional<std::vector<int64_t>> permutation(const GraphEditor& g, int i) {
  if (const auto* p = find_attribute(g.node(i), "perm")) {
    return std::vector<int64_t>(p->ints().begin(), p->ints().end());
  }
  auto r = g.rank(g.node(i).input(0));
  if (!r) return std::nullopt;
  std::vector<int64_t> perm(*r);
  std::iota(perm.rbegin(), perm.rend(), 0);
  return perm;
}

bool is_identity(const std::vector<int64_t>& perm) {
  for (size_t k = 0; k < perm.size(); ++k) {
    if (perm[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

// out[j] = in[first[second[j]]] for y = Transpose(x, first), z = Transpose(y, second).
bool cancel(const std::vector<int64_t>& first, const std::vector<int64_t>& second) {
  if (first.size() != second.size()) return false;
  for (size_t j = 0; j < second.size(); ++j) {
    if (second[j] < 0 || second[j] >= static_cast<int64_t>(first.size())) return false;
    if (first[second[j]] != static_cast<int64_t>(j)) return false;
  }
  return true;
}

// A boolean constant's value (Dropout's training_mode), when the input is a constant.
std::optional<bool> bool_constant(const GraphEditor& g, const std::string& value) {
  const auto* t = g.constant(value);
  if (!t || t->data_type() != ox::TensorProto::BOOL) return std::nullopt;
  if (t->has_raw_data() && t->raw_data().size() == 1) return t->raw_data()[0] != 0;
  if (t->int32_data_size() == 1) return t->int32_data(0) != 0;
  return std::nullopt;
}

}  // namespace

PairRemoval remove_inverse_pair(GraphEditor& g, int first, int second, RoundNotes& notes) {
  const std::string x = g.node(first).input(0);
  const std::string z = g.node(second).output(0);
  bool drop_first = g.only_feeds(g.node(second).input(0), second);
  std::vector<int> involved = {first, second, g.producer(x)};
  for (int c : g.consumers(z)) involved.push_back(c);
  if (g.any_touched(involved)) return PairRemoval::deferred;
  if (auto why = g.bypass(second, x, z)) {
    notes.skipped.push_back({names_of(g, {first, second}), *why});
    return PairRemoval::refused;
  }
  if (drop_first) g.remove_node(first);
  return drop_first ? PairRemoval::both : PairRemoval::second_only;
}

void remove_identity(GraphEditor& g, const PassScope& scope, PassResult& out) {
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int i = 0; i < g.node_count(); ++i) {
      if (!g.is_op(i, "Identity") || !scope.covers(g, {i}) || g.node(i).input_size() != 1 ||
          g.node(i).output_size() != 1) {
        continue;
      }
      applied += remove_passthrough(g, i, "removed Identity", out, notes);
    }
    return applied;
  });
}

void remove_dropout(GraphEditor& g, const PassScope& scope, PassResult& out) {
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int i = 0; i < g.node_count(); ++i) {
      if (!g.is_op(i, "Dropout") || !scope.covers(g, {i})) continue;
      const auto& n = g.node(i);
      auto skip = [&](std::string why) { notes.skipped.push_back({{g.node_name(i)}, why}); };
      if (g.opset() < 7 && int_attribute(n, "is_test", 0) == 0) {
        skip("Dropout in training mode (is_test=0) draws a random mask");
        continue;
      }
      if (n.input_size() >= 3 && !n.input(2).empty()) {
        auto training = bool_constant(g, n.input(2));
        if (!training) {
          skip("training_mode is not a constant, so the mask may be random");
          continue;
        }
        if (*training) {
          skip("training_mode is true: the Dropout draws a random mask");
          continue;
        }
      }
      if (n.output_size() >= 2 && !n.output(1).empty() && g.used(n.output(1))) {
        skip("its mask output " + n.output(1) + " is used");
        continue;
      }
      applied +=
          remove_passthrough(g, i, "removed inference-time Dropout (the identity)", out, notes);
    }
    return applied;
  });
}

void remove_transpose(GraphEditor& g, const PassScope& scope, PassResult& out) {
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int i = 0; i < g.node_count(); ++i) {
      if (!g.is_op(i, "Transpose") || g.touched(i)) continue;
      const auto& n = g.node(i);
      auto perm = permutation(g, i);
      if (perm && is_identity(*perm)) {
        if (!scope.covers(g, {i})) continue;
        applied +=
            remove_passthrough(g, i, "removed Transpose with the identity permutation", out, notes);
        continue;
      }
      int first = g.producer(n.input(0));
      if (first < 0 || !g.is_op(first, "Transpose") || !scope.covers(g, {first, i})) continue;
      auto first_perm = permutation(g, first);
      if (!perm || !first_perm || !cancel(*first_perm, *perm)) continue;
      auto removal = remove_inverse_pair(g, first, i, notes);
      if (removal == PairRemoval::deferred || removal == PairRemoval::refused) continue;
      out.applied.push_back(
          {names_of(g, {first, i}),
           removal == PairRemoval::both
               ? "removed a Transpose pair whose permutations cancel"
               : "removed the second of two Transposes whose permutations cancel (the first has "
                 "other readers)"});
      ++applied;
    }
    return applied;
  });
}

}  // namespace perfsage::actions::onnx

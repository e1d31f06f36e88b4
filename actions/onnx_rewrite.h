// The onnx_rewrite action kind: graph passes on an ONNX model, each applied only where it is
// exact (see actions/onnx/passes.h and docs/actions.md). Rewrites that change the outputs
// (a Cast round trip through a narrower type, replacing Mish) are proposed, with what would
// change, and applied only when the caller allows inexact rewrites.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "perfsage/onnx/onnx.pb.h"

namespace perfsage::actions {

struct OnnxPassInfo {
  std::string name;
  bool exact;  // false: changes outputs, applied only with allow_inexact
  std::string summary;
};
// The passes in the order a rewrite runs them (clean-ups first, so that folds see through them).
const std::vector<OnnxPassInfo>& onnx_passes();
const OnnxPassInfo* find_onnx_pass(std::string_view name);

// One requested pass: what a finding proposed.
struct OnnxRewriteStep {
  std::string pass;
  std::vector<std::string> nodes;    // node names (the finding's subjects); empty = whole graph
  std::string pattern, replacement;  // replace_activation
  std::string finding;               // the finding id that proposed it
};

struct OnnxRewriteNote {
  std::string finding, pass;
  std::vector<std::string> nodes;
  std::string text;
  bool exact = true;
};

struct OnnxRewriteReport {
  std::vector<OnnxRewriteNote> applied;   // done (in the model now)
  std::vector<OnnxRewriteNote> proposed;  // inexact, left out: allow_inexact was not given
  std::vector<OnnxRewriteNote> skipped;   // not exact here (or not found), with the reason
  bool changed() const { return !applied.empty(); }
};

// Rewrites `model` in place. Steps naming an unknown pass throw std::invalid_argument.
OnnxRewriteReport rewrite_onnx(perfsage::onnx::ModelProto& model,
                               const std::vector<OnnxRewriteStep>& steps, bool allow_inexact);

// Reads a binary ONNX model; throws std::runtime_error naming the file and what is wrong.
perfsage::onnx::ModelProto read_onnx_model(const std::filesystem::path& file);
// Deterministic serialization (the same model gives the same bytes).
std::string serialize_onnx_model(const perfsage::onnx::ModelProto& model);
// The external-data files the model's tensors point to, relative to the model's folder.
std::vector<std::string> onnx_external_files(const perfsage::onnx::ModelProto& model);

class ActionKind;
// The onnx_rewrite action kind (actions/kind.h): one rewritten model per ONNX model of the run.
const ActionKind& onnx_rewrite_kind();

}  // namespace perfsage::actions

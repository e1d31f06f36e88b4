// Turns a parsed ONNX ModelProto into graph records: nodes, edges, tensors, model attributes.
#pragma once

#include <string>
#include <vector>

#include "collectors/common/collector.h"
#include "perfsage/onnx/onnx.pb.h"

namespace perfsage::collectors::graph {

// Emits the main graph and, recursively, the subgraphs held in node attributes (If, Loop, Scan).
// Initializers become tensors with their byte size; their data is never copied.
void emit_onnx_model(const perfsage::onnx::ModelProto& model, CollectContext& ctx);

// The node names and tensor sizes stored here are proto/onnx_model.h's, which the ONNX
// rewrites in actions/ use too.

}  // namespace perfsage::collectors::graph

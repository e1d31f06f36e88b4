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

// The names nodes are stored (and findings name them) by: a node's own name, or
// <op_type>_<index> (made unique) for an unnamed node. ONNX allows empty and repeated names.
std::vector<std::string> onnx_node_names(const perfsage::onnx::GraphProto& g);

// Bytes an initializer occupies (from raw data, typed data, external-data length or dims).
int64_t onnx_tensor_bytes(const perfsage::onnx::TensorProto& t);

}  // namespace perfsage::collectors::graph

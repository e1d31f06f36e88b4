// What both the ONNX collector and the ONNX rewrites need to agree on, beside the schema they
// share (perfsage/onnx/onnx.pb.h): the names nodes are stored and named in findings by, the
// bytes an initializer occupies, and the collector's name in a run's ingest_files.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "perfsage/onnx/onnx.pb.h"

namespace perfsage::onnx_model {

// The collector that reads ONNX models, as ingest_files.collector records it.
inline constexpr const char* kCollectorName = "onnx-model";

// A node's own name, or <op_type>_<index> (made unique) for an unnamed node. ONNX allows empty
// and repeated names.
std::vector<std::string> node_names(const perfsage::onnx::GraphProto& g);

// Bytes an initializer occupies (from raw data, typed data, external-data length or dims).
int64_t tensor_bytes(const perfsage::onnx::TensorProto& t);

}  // namespace perfsage::onnx_model

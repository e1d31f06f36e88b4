// ONNX models (.onnx): a binary onnx.ModelProto, parsed straight from the file.
#pragma once

#include <string>
#include <string_view>

#include "collectors/common/collector.h"
#include "proto/onnx_model.h"

namespace perfsage::collectors::graph {

class OnnxCollector : public Collector {
 public:
  std::string name() const override { return onnx_model::kCollectorName; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

// True when `head` (the first bytes of a file) decodes as the start of an onnx.ModelProto:
// an ir_version varint first, then only ModelProto fields with their wire types.
bool looks_like_onnx_head(std::string_view head);

}  // namespace perfsage::collectors::graph

// GE graph dumps (ge_proto_*_<Stage>.txt): protobuf text format of one ge.proto.ModelDef.
#pragma once

#include <string>

#include "collectors/common/collector.h"

namespace perfsage::collectors::graph {

class GeDumpCollector : public Collector {
 public:
  std::string name() const override { return "ge-graph-dump"; }
  int detect(const FileProbe& probe) const override;
  void collect(const FileProbe& probe, CollectContext& ctx) const override;
};

// The compilation stage named in a dump's file name ("Build", "PreRunAfterBuild"), or "".
std::string ge_dump_stage(const std::string& file_name);

}  // namespace perfsage::collectors::graph

// Turns a parsed GE ModelDef into graph records: nodes, edges, tensor descriptors, attributes.
#pragma once

#include <string>
#include <vector>

#include "collectors/common/collector.h"
#include "ge/ge_ir.pb.h"

namespace perfsage::collectors::graph {

// Emits every graph of a model into ctx.out(). The model may come in parts (consecutive
// top-level blocks of one dump parsed separately): their graphs are taken in order, the first
// being the root, and subgraph references resolve across parts. `source` tags the nodes (e.g.
// "ge:Build") so dumps of several compilation stages in one run stay apart. Malformed input
// references are skipped through ctx.skip (strict mode: ParseError naming graph, op and slot).
void emit_ge_model(const std::vector<const ge::proto::ModelDef*>& parts, const std::string& source,
                   CollectContext& ctx);

}  // namespace perfsage::collectors::graph

// Turns a parsed GE ModelDef into graph records: nodes, edges, tensor descriptors, attributes.
#pragma once

#include <string>

#include "collectors/common/collector.h"
#include "ge/ge_ir.pb.h"

namespace perfsage::collectors::graph {

// Emits every graph of `model` into ctx.out(). `source` tags the nodes (e.g. "ge:Build") so
// dumps of several compilation stages in one run stay apart. Malformed input references are
// skipped through ctx.skip (strict mode: ParseError naming graph, op and input slot).
void emit_ge_model(const ge::proto::ModelDef& model, const std::string& source,
                   CollectContext& ctx);

}  // namespace perfsage::collectors::graph

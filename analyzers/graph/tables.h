// The table the graph_match analyzer writes, declared once (store/derived_tables.h).
#pragma once

#include "store/derived_tables.h"

namespace perfsage::analyzers::graph::tables {

const store::DerivedTable& op_matches();  // graph_op_matches

}  // namespace perfsage::analyzers::graph::tables

// The tables the patterns analyzer writes, each declared once (store/derived_tables.h).
#pragma once

#include "store/derived_tables.h"

namespace perfsage::analyzers::patterns::tables {

const store::DerivedTable& fusion_candidates();  // fusion_candidates
const store::DerivedTable& transdata_chains();   // transdata_chains
const store::DerivedTable& graph_cleanups();     // graph_cleanups

}  // namespace perfsage::analyzers::patterns::tables

// The tables the roofline analyzer writes, each declared once (store/derived_tables.h).
#pragma once

#include "store/derived_tables.h"

namespace perfsage::analyzers::roofline::tables {

const store::DerivedTable& hardware_specs();  // hardware_specs
const store::DerivedTable& roofline_ops();
const store::DerivedTable& gpu_op_groups();        // gpu_op_groups
const store::DerivedTable& ascend_op_groups();     // ascend_op_groups
const store::DerivedTable& activation_patterns();  // activation_patterns
const store::DerivedTable& shape_alignment();      // shape_alignment

}  // namespace perfsage::analyzers::roofline::tables

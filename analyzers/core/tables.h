// The tables of the core analyzers (op_stats, cpu_self_time), each declared once
// (store/derived_tables.h): the DDL, the inserts and their reference in docs/facts.md come
// from here.
#pragma once

#include "store/derived_tables.h"

namespace perfsage::analyzers::tables {

const store::DerivedTable& op_stats();               // op_stats
const store::DerivedTable& op_type_stats();          // op_type_stats
const store::DerivedTable& op_block_dims();          // op_block_dims
const store::DerivedTable& op_name_totals();         // op_name_totals
const store::DerivedTable& host_op_self();           // host_op_self
const store::DerivedTable& host_op_totals();         // host_op_totals
const store::DerivedTable& rank_totals();            // rank_totals
const store::DerivedTable& hccl_totals();            // hccl_totals
const store::DerivedTable& host_collective_calls();  // host_collective_calls

}  // namespace perfsage::analyzers::tables

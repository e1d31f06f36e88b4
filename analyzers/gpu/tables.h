// The tables the GPU analyzer writes, each declared once (store/derived_tables.h): the DDL, the
// inserts in the compute files and their reference in docs/facts.md come from here.
// kernel_launch_ops, which the GPU analyzer also writes, is declared in core/launch_ops.h.
#pragma once

#include "store/derived_tables.h"

namespace perfsage::analyzers::gpu::tables {

const store::DerivedTable& streams();           // gpu_streams
const store::DerivedTable& launch_stats();      // gpu_launch_stats
const store::DerivedTable& api_totals();        // api_totals
const store::DerivedTable& kernel_groups();     // kernel_groups
const store::DerivedTable& time_breakdown();    // gpu_time_breakdown
const store::DerivedTable& host_blocking();     // host_blocking
const store::DerivedTable& queues();            // gpu_queues
const store::DerivedTable& collectives();       // gpu_collectives
const store::DerivedTable& comm_kernels();      // gpu_comm_kernels
const store::DerivedTable& range_counters();    // gpu_range_counters
const store::DerivedTable& collective_ranks();  // gpu_collective_ranks
const store::DerivedTable& collective_spans();  // gpu_collective_spans
const store::DerivedTable& kernel_totals();     // kernel_totals
const store::DerivedTable& copy_groups();       // copy_groups
const store::DerivedTable& launch_profile();    // gpu_launch_profile

}  // namespace perfsage::analyzers::gpu::tables

// The tables the iteration analyzer writes, each declared once (store/derived_tables.h).
#pragma once

#include "store/derived_tables.h"

namespace perfsage::analyzers::iteration::tables {

const store::DerivedTable& ranks();            // iteration_ranks
const store::DerivedTable& device_activity();  // device_activity
const store::DerivedTable& schedule();         // iteration_schedule

}  // namespace perfsage::analyzers::iteration::tables

// Scales a real op table (kernel_details / op_summary CSV) up to N rows by repeating its rows
// with start times shifted past the previous copy, for benchmarks.
#pragma once

#include <cstdint>
#include <string>

namespace perfsage::bench {

// Returns CSV text with the header of `sample` and exactly `rows` data rows.
std::string scale_op_table(const std::string& sample, int64_t rows);

}  // namespace perfsage::bench

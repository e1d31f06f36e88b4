// The readable text form of a run comparison (`perfsage compare`): the two runs, what is not
// like with like, step time and its breakdown, the largest op changes, the findings' changes.
#pragma once

#include <string>

#include "perfsage/v1/api.pb.h"

namespace perfsage::cli {

std::string render_compare_text(const perfsage::v1::RunComparison& c);

}  // namespace perfsage::cli

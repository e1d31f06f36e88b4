// A run comparison as one self-contained HTML file (`perfsage compare --format html`): the
// report's stylesheet embedded, the tables written out (no script), so it opens offline.
#pragma once

#include <string>

#include "perfsage/v1/api.pb.h"

namespace perfsage::app {

// "+1.20 ms", "-35.0 µs": a delta with its sign.
std::string signed_us(double us);
// "+12.5 %" of a's value; empty when a is 0.
std::string relative_change(double a, double b);

std::string render_compare_html(const perfsage::v1::RunComparison& c);

}  // namespace perfsage::app

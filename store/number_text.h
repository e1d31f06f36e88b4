// Numbers as a report shows them to people, one copy for every layer and front end: the text
// report, the HTML report's evidence and the action verdicts all read "21.85 ms", "34.7 %",
// "1.5 MiB", never "2.185e+04 us" or "0.346517 ratio".
#pragma once

#include <string>

namespace perfsage::store {

std::string format_us(double us);      // 785.3 µs, 1.23 ms, 2.50 s
std::string format_pct(double ratio);  // 0.347 -> 34.7 %
std::string format_bytes(double bytes);
// Never an exponent between 1e-6 and 1e15, four significant digits below 100, whole numbers
// above.
std::string format_number(double v);
// Large and small numbers with an SI prefix and 3-4 significant digits: 1.27e11 -> "127.0 G".
std::string format_si(double v);
// A value in one of the units evidence and measures are given in (docs/report-json.md):
// us, ms, ratio (a fraction shown as a percentage), pct (0..100), bytes, GB/s, FLOP, FLOP/s,
// FLOP/byte, count or none.
std::string format_quantity(double v, const std::string& unit);

}  // namespace perfsage::store

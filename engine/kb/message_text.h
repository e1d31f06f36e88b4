// Renders message templates and evidence with units: {?t:us} -> "785.3 µs" / "1.23 ms",
// {?s:pct} -> "3.2 %", {?b:bytes} -> "1.5 MiB", {?n:int} -> "42", {?x} -> value as is.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/clips/value.h"

namespace perfsage::engine {

std::string format_us(double us);
std::string format_pct(double ratio);
std::string format_bytes(double bytes);
std::string format_number(double v);
// Large and small numbers with an SI prefix and 3-4 significant digits: 1.27e11 -> "127.0 G".
std::string format_si(double v);
// A symbol name for titles: a C++ kernel or function name without its return type, template
// arguments and parameter lists ("void at::native::elementwise_kernel<128, 4, ...>(int, ...)"
// -> "at::native::elementwise_kernel<...>"), at most 100 characters. Other names are kept.
std::string short_name(const std::string& name);
// One value with an optional unit format (us, ms, s, pct, int, num, si, flops, bytes; name
// shortens a kernel or function name with short_name).
std::string format_value(const clips::Value& v, const std::string& fmt);

// An evidence number for people, its unit taken from the key's name (the naming convention
// of docs/kb-authoring.md): *_us a duration, *share / *ratio / utilisation a percentage,
// *_pct a percentage given as 0..100, *bytes a size, *_gbps a bandwidth, flops and
// FLOP/s keys with an SI prefix; anything else a plain number.
std::string format_evidence(const std::string& key, double value);

// Names of the variables a template references ({?name} / {?name:fmt}), in order, unique.
std::vector<std::string> template_variables(const std::string& tmpl);
// Substitutes variables; unknown ones are left as written.
std::string render_template(const std::string& tmpl,
                            const std::map<std::string, clips::Value>& vars);

// JSON text of one value (numbers as JSON numbers, everything else as strings).
std::string json_value(const clips::Value& v);

}  // namespace perfsage::engine

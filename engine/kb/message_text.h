// Renders message templates and evidence with units: {?t:us} -> "785.3 µs" / "1.23 ms",
// {?s:pct} -> "3.2 %", {?b:bytes} -> "1.5 MiB", {?n:int} -> "42", {?x} -> value as is.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "engine/clips/value.h"
#include "store/number_text.h"

namespace perfsage::engine {

// The report's number formats (store/number_text.h), named here for the engine's callers.
using store::format_bytes;
using store::format_number;
using store::format_pct;
using store::format_si;
using store::format_us;

// A symbol name for titles: a C++ kernel or function name without its return type, template
// arguments and parameter lists ("void at::native::elementwise_kernel<128, 4, ...>(int, ...)"
// -> "at::native::elementwise_kernel<...>"), at most 100 characters. Other names are kept.
std::string short_name(const std::string& name);
// One value with an optional unit format (us, ms, s, pct, int, num, si, flops, bytes; name
// shortens a kernel or function name with short_name).
std::string format_value(const clips::Value& v, const std::string& fmt);

// The unit of an evidence value, from the key's name (the naming convention of
// docs/kb-authoring.md): *_us us, *_ms ms, *share / *ratio / *_frac / utilisation /
// co_occurrence ratio, *_pct pct, *bytes bytes, *_gbps GB/s, *flops FLOP, achieved and
// attainable FLOP/s, *intensity and ridge FLOP/byte, *count / n / calls / ranks / steps count;
// *_median as the key without it;
// anything else none ("").
std::string evidence_unit(const std::string& key);
// An evidence number for people, in the unit evidence_unit gives its key.
std::string format_evidence(const std::string& key, double value);

// Names of the variables a template references ({?name} / {?name:fmt}), in order, unique.
std::vector<std::string> template_variables(const std::string& tmpl);
// Substitutes variables; unknown ones are left as written.
std::string render_template(const std::string& tmpl,
                            const std::map<std::string, clips::Value>& vars);

// JSON text of one value (numbers as JSON numbers, everything else as strings).
std::string json_value(const clips::Value& v);

}  // namespace perfsage::engine

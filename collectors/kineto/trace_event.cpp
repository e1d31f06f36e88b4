#include "collectors/kineto/trace_event.h"

#include "collectors/kineto/number_text.h"

namespace perfsage::collectors::kineto {
namespace od = simdjson::ondemand;
using simdjson::error_code;
using simdjson::SUCCESS;

void TraceEvent::clear() {
  ph = cat = name = bp = pid_text = tid_text = id_text = {};
  pid = tid = id = ts_ns = dur_ns = std::nullopt;
  external_id = correlation = device = stream = registers = shared_mem = bytes = std::nullopt;
  blocks_per_sm = warps_per_sm = occupancy = bandwidth_gbps = std::nullopt;
  grid.clear();
  block.clear();
  input_dims.clear();
  input_types.clear();
  copy_kind.clear();
  extra.clear();
}

std::string EventError::message() const {
  std::string m = "expected a valid value";
  if (*field) m += std::string(" for \"") + field + "\"";
  return m + " (" + simdjson::error_message(code) + ")";
}

namespace {

// Whether a key is `lit`: compared byte by byte where the compiler sees the literal's length,
// instead of a call to memcmp for each of the dozen keys tried on every field of every event.
template <size_t N>
inline bool key_is(std::string_view key, const char (&lit)[N]) {
  if (key.size() != N - 1) return false;
  for (size_t i = 0; i + 1 < N; ++i)
    if (key[i] != lit[i]) return false;
  return true;
}

// The raw text of a key, from just after its opening quote to its closing quote.
std::string_view raw_key(od::raw_json_string key) {
  const char* p = key.raw();
  const char* q = p;
  while (*q != '"') q += (*q == '\\') ? 2 : 1;
  return {p, static_cast<size_t>(q - p)};
}

// The JSON text of any value (objects and arrays whole), consuming it.
error_code raw_value(od::value& v, std::string_view& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::object) {
    od::object o;
    if (auto e = v.get_object().get(o)) return e;
    return o.raw_json().get(out);
  }
  if (t == od::json_type::array) {
    od::array a;
    if (auto e = v.get_array().get(a)) return e;
    return a.raw_json().get(out);
  }
  out = trim(v.raw_json_token());
  return SUCCESS;
}

// Integer args: JSON numbers, or numbers written as strings. Anything else (hex ids, integers
// beyond 64 bits) is kept verbatim in `extra` so nothing is lost.
bool int_arg(od::value& v, std::optional<int64_t>& out, std::string_view& raw) {
  od::json_type t;
  if (v.type().get(t)) return false;
  if (t == od::json_type::number) {
    raw = trim(v.raw_json_token());
    out = parse_int(raw);
    return out.has_value();
  }
  if (t == od::json_type::string) {
    raw = trim(v.raw_json_token());
    std::string_view s;
    if (v.get_string().get(s)) return false;
    out = parse_int(s);
    return out.has_value();
  }
  return false;
}

bool real_arg(od::value& v, std::optional<double>& out, std::string_view& raw) {
  od::json_type t;
  if (v.type().get(t) || t != od::json_type::number) return false;
  raw = trim(v.raw_json_token());
  out = parse_real(raw);
  return out.has_value();
}

error_code string_or_token(od::value& v, std::string_view& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::string) return v.get_string().get(out);
  out = trim(v.raw_json_token());
  return SUCCESS;
}

// pid / tid / id: integers, or strings such as "Spans" and "stream 7".
error_code id_field(od::value& v, std::optional<int64_t>& num, std::string_view& text) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  if (t == od::json_type::string) {
    if (auto e = v.get_string().get(text)) return e;
    num = parse_int(text);
    return SUCCESS;
  }
  if (t == od::json_type::number) {
    std::string_view raw = trim(v.raw_json_token());
    num = parse_int(raw);
    if (!num) text = raw;
    return SUCCESS;
  }
  if (t == od::json_type::null) return SUCCESS;
  return simdjson::INCORRECT_TYPE;
}

error_code time_field(od::value& v, std::optional<int64_t>& out) {
  od::json_type t;
  if (auto e = v.type().get(t)) return e;
  std::string_view text;
  if (t == od::json_type::string) {
    if (auto e = v.get_string().get(text)) return e;
  } else if (t == od::json_type::number) {
    text = v.raw_json_token();
  } else {
    return simdjson::INCORRECT_TYPE;
  }
  out = parse_us_to_ns(text);
  return out ? SUCCESS : simdjson::NUMBER_OUT_OF_RANGE;
}

void append_extra(std::string& extra, std::string_view key, std::string_view raw) {
  extra.push_back(extra.empty() ? '{' : ',');
  extra.push_back('"');
  extra.append(key);
  extra.append("\":");
  append_compact_json(extra, raw);
}

error_code read_args(od::object args, TraceEvent& ev, const char*& field) {
  for (auto f : args) {
    od::field fld;
    if (auto e = std::move(f).get(fld)) return e;
    std::string_view key = raw_key(fld.key());
    field = "args";
    od::value v = fld.value();
    std::string_view raw;
    bool used = false;
    switch (key.size()) {
      case 4:
        if (key_is(key, "grid")) {
          if (auto e = raw_value(v, raw)) return e;
          append_compact_json(ev.grid, raw);
          continue;
        }
        if (key_is(key, "kind")) {  // ROCm copies: "HtoD"
          if (string_or_token(v, raw) == SUCCESS) ev.copy_kind.assign(raw);
          continue;
        }
        break;
      case 5:
        if (key_is(key, "block")) {
          if (auto e = raw_value(v, raw)) return e;
          append_compact_json(ev.block, raw);
          continue;
        }
        if (key_is(key, "bytes")) used = int_arg(v, ev.bytes, raw);
        break;
      case 6:
        if (key_is(key, "device")) used = int_arg(v, ev.device, raw);
        if (key_is(key, "stream")) used = int_arg(v, ev.stream, raw);
        if (key_is(key, "queued")) continue;
        if (key_is(key, "Ev Idx")) continue;
        break;
      case 7:
        if (key_is(key, "context")) continue;
        break;
      case 10:
        if (key_is(key, "Input Dims")) {
          if (auto e = raw_value(v, raw)) return e;
          append_compact_json(ev.input_dims, raw);
          continue;
        }
        if (key_is(key, "Input type")) {
          if (auto e = raw_value(v, raw)) return e;
          append_compact_json(ev.input_types, raw);
          continue;
        }
        break;
      case 11:
        if (key_is(key, "External id") || key_is(key, "external id"))
          used = int_arg(v, ev.external_id, raw);
        if (key_is(key, "correlation")) used = int_arg(v, ev.correlation, raw);
        break;
      case 12:
        if (key_is(key, "warps per SM")) used = real_arg(v, ev.warps_per_sm, raw);
        break;
      case 13:
        if (key_is(key, "shared memory")) used = int_arg(v, ev.shared_mem, raw);
        if (key_is(key, "blocks per SM")) used = real_arg(v, ev.blocks_per_sm, raw);
        break;
      case 18:
        if (key_is(key, "Record function id")) continue;
        break;
      case 20:
        if (key_is(key, "registers per thread")) used = int_arg(v, ev.registers, raw);
        break;
      case 23:
        if (key_is(key, "memory bandwidth (GB/s)")) used = real_arg(v, ev.bandwidth_gbps, raw);
        break;
      case 25:
        if (key_is(key, "est. achieved occupancy %")) used = real_arg(v, ev.occupancy, raw);
        break;
      default:
        break;
    }
    if (used) continue;
    // Not a column (or a column value of an unexpected type): keep it verbatim.
    if (raw.empty()) {
      if (auto e = raw_value(v, raw)) return e;
    }
    append_extra(ev.extra, key, raw);
  }
  if (!ev.extra.empty()) ev.extra.push_back('}');
  return SUCCESS;
}

}  // namespace

EventError read_event(od::object obj, TraceEvent& ev) {
  ev.clear();
  EventError err;
  for (auto f : obj) {
    od::field fld;
    if ((err.code = std::move(f).get(fld))) return err;
    std::string_view key = raw_key(fld.key());
    od::value v = fld.value();
    err.field = "";
    if (key_is(key, "ph")) {
      err.field = "ph";
      err.code = string_or_token(v, ev.ph);
    } else if (key_is(key, "cat")) {
      err.field = "cat";
      err.code = string_or_token(v, ev.cat);
    } else if (key_is(key, "name")) {
      err.field = "name";
      err.code = string_or_token(v, ev.name);
    } else if (key_is(key, "ts")) {
      err.field = "ts";
      err.code = time_field(v, ev.ts_ns);
    } else if (key_is(key, "dur")) {
      err.field = "dur";
      err.code = time_field(v, ev.dur_ns);
    } else if (key_is(key, "pid")) {
      err.field = "pid";
      err.code = id_field(v, ev.pid, ev.pid_text);
    } else if (key_is(key, "tid")) {
      err.field = "tid";
      err.code = id_field(v, ev.tid, ev.tid_text);
    } else if (key_is(key, "id")) {
      err.field = "id";
      err.code = id_field(v, ev.id, ev.id_text);
    } else if (key_is(key, "bp")) {
      err.field = "bp";
      err.code = string_or_token(v, ev.bp);
    } else if (key_is(key, "args")) {
      err.field = "args";
      od::json_type t;
      if (!(err.code = v.type().get(t)) && t == od::json_type::object) {
        od::object args;
        if (!(err.code = v.get_object().get(args))) err.code = read_args(args, ev, err.field);
      }
    }
    if (err.code) return err;
  }
  err.field = "";
  return err;
}

}  // namespace perfsage::collectors::kineto

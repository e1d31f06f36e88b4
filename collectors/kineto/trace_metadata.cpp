#include "collectors/kineto/trace_metadata.h"

#include <cctype>

#include "collectors/kineto/number_text.h"

namespace perfsage::collectors::kineto {
namespace od = simdjson::ondemand;

namespace {

std::optional<int64_t> int_value(od::value v) {
  od::json_type t;
  if (v.type().get(t)) return std::nullopt;
  std::string_view s;
  if (t == od::json_type::string) {
    if (v.get_string().get(s)) return std::nullopt;
  } else if (t == od::json_type::number) {
    s = v.raw_json_token();
  } else {
    return std::nullopt;
  }
  return parse_int(s);
}

std::string string_value(od::value v) {
  std::string_view s;
  if (v.get_string().get(s)) return {};
  return std::string(s);
}

simdjson::error_code read_gpus(od::document& doc, TraceMetadata& md) {
  od::array arr;
  if (auto e = doc.get_array().get(arr)) return e;
  for (auto item : arr) {
    od::object obj;
    if (auto e = item.get_object().get(obj)) return e;
    std::string_view raw;
    if (auto e = obj.raw_json().get(raw)) return e;
    GpuProperties g;
    append_compact_json(g.props, raw);
    obj.reset();
    std::optional<int64_t> major, minor;
    for (auto f : obj) {
      od::field fld;
      if (auto e = std::move(f).get(fld)) return e;
      std::string_view key;
      if (auto e = fld.unescaped_key().get(key)) return e;
      if (key == "id")
        g.id = int_value(fld.value());
      else if (key == "name")
        g.name = string_value(fld.value());
      else if (key == "totalGlobalMem")
        g.memory_bytes = int_value(fld.value());
      else if (key == "numSms")
        g.sm_count = int_value(fld.value());
      else if (key == "maxComputeUnits" && !g.sm_count)
        g.sm_count = int_value(fld.value());
      else if (key == "computeMajor")
        major = int_value(fld.value());
      else if (key == "computeMinor")
        minor = int_value(fld.value());
    }
    if (major)
      g.compute_capability = std::to_string(*major) + "." + std::to_string(minor.value_or(0));
    if (!g.id) g.id = static_cast<int64_t>(md.gpus.size());
    md.gpus.push_back(std::move(g));
  }
  return simdjson::SUCCESS;
}

simdjson::error_code read_distributed(od::document& doc, TraceMetadata& md) {
  od::object obj;
  if (auto e = doc.get_object().get(obj)) return e;
  for (auto f : obj) {
    od::field fld;
    if (auto e = std::move(f).get(fld)) return e;
    std::string_view key;
    if (auto e = fld.unescaped_key().get(key)) return e;
    // pg_count is not trusted (it disagrees with pg_config in real traces) and not needed.
    if (key == "rank")
      md.rank = int_value(fld.value());
    else if (key == "world_size")
      md.world_size = int_value(fld.value());
    else if (key == "backend") {
      std::string b = string_value(fld.value());
      if (!b.empty()) md.backend = b;
    }
  }
  return simdjson::SUCCESS;
}

}  // namespace

TraceMetadata read_metadata(std::string_view text,
                            const std::vector<std::pair<std::string, Span>>& keys,
                            od::parser& parser) {
  TraceMetadata md;
  for (const auto& [key, span] : keys) {
    bool wanted = key == "deviceProperties" || key == "distributedInfo" ||
                  key == "baseTimeNanoseconds" || key == "schemaVersion";
    if (!wanted) continue;
    simdjson::padded_string value(text.substr(span.begin, span.size()));
    od::document doc;
    simdjson::error_code err = parser.iterate(value).get(doc);
    if (!err) {
      if (key == "deviceProperties") {
        md.has_device_properties = true;
        err = read_gpus(doc, md);
      } else if (key == "distributedInfo") {
        md.has_distributed_info = true;
        err = read_distributed(doc, md);
      } else {
        std::string_view raw;
        od::json_type t;
        if (!(err = doc.type().get(t))) {
          if (t == od::json_type::string) {
            err = doc.get_string().get(raw);
          } else {
            err = doc.raw_json_token().get(raw);
          }
        }
        auto v = err ? std::nullopt : parse_int(raw);
        if (!err && !v) err = simdjson::NUMBER_ERROR;
        (key == "schemaVersion" ? md.schema_version : md.base_ns) = v;
      }
    }
    if (err) {
      md.problems.push_back(key + " at byte " + std::to_string(span.begin) + ": " +
                            simdjson::error_message(err));
    }
  }
  return md;
}

std::optional<int64_t> rank_from_head(std::string_view head, std::string_view file_name) {
  std::vector<std::pair<std::string, Span>> keys;
  try {
    for (auto& kv : scan_head_keys(head))
      if (kv.first == "distributedInfo" && kv.second.end <= head.size()) keys.push_back(kv);
  } catch (const std::exception&) {  // a head cut inside a key: it does not say
    return std::nullopt;
  }
  if (!keys.empty()) {
    od::parser parser;
    if (auto rank = read_metadata(head, keys, parser).rank) return rank;
  } else if (head.find("\"distributedInfo\"") != std::string_view::npos) {
    return std::nullopt;
  }
  return rank_from_file_name(file_name);
}

std::optional<int64_t> rank_from_file_name(std::string_view name) {
  for (size_t i = 0; i + 4 <= name.size(); ++i) {
    bool match = true;
    for (size_t k = 0; k < 4; ++k) {
      if (std::tolower(static_cast<unsigned char>(name[i + k])) != "rank"[k]) match = false;
    }
    if (!match) continue;
    size_t j = i + 4;
    if (j < name.size() && (name[j] == '-' || name[j] == '_')) ++j;
    size_t d = j;
    while (d < name.size() && std::isdigit(static_cast<unsigned char>(name[d]))) ++d;
    if (d > j && d - j <= 9) return parse_int(name.substr(j, d - j));
  }
  return std::nullopt;
}

}  // namespace perfsage::collectors::kineto

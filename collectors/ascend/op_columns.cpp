#include "collectors/ascend/op_columns.h"

#include <array>
#include <utility>

#include "collectors/common/csv_values.h"
#include "store/json_text.h"

namespace perfsage::collectors::ascend {

namespace {

struct Alias {
  std::string_view header;  // lower case
  OpField field;
};

// Identity and timing columns, both spellings (formats.md §3.1).
constexpr std::array kIdentity = {
    Alias{"op name", OpField::name},
    Alias{"name", OpField::name},
    Alias{"op type", OpField::type},
    Alias{"type", OpField::type},
    Alias{"task type", OpField::core},
    Alias{"accelerator core", OpField::core},
    Alias{"task start time(us)", OpField::start},
    Alias{"start time(us)", OpField::start},
    Alias{"task duration(us)", OpField::dur},
    Alias{"duration(us)", OpField::dur},
    Alias{"task wait time(us)", OpField::wait},
    Alias{"wait time(us)", OpField::wait},
    Alias{"block dim", OpField::block},
    Alias{"block num", OpField::block},
    Alias{"mix block dim", OpField::mix_block},
    Alias{"mix block num", OpField::mix_block},
    Alias{"device_id", OpField::device},
    Alias{"device id", OpField::device},
    Alias{"step id", OpField::step},
    Alias{"model id", OpField::model},
    Alias{"stream id", OpField::stream},
    Alias{"task id", OpField::task},
    Alias{"op state", OpField::op_state},
    Alias{"input shapes", OpField::in_shapes},
    Alias{"input data types", OpField::in_dtypes},
    Alias{"input formats", OpField::in_formats},
    Alias{"output shapes", OpField::out_shapes},
    Alias{"output data types", OpField::out_dtypes},
    Alias{"output formats", OpField::out_formats},
    Alias{"aicore_time(us)", OpField::aicore_time},
    Alias{"aiv_time(us)", OpField::aiv_time},
};

// PMU metrics, named without the aic_/aiv_ prefix (formats.md §3.3).
constexpr std::array kMetrics = {
    Alias{"cube_fops", OpField::cube_fops},
    Alias{"vector_fops", OpField::vector_fops},
    Alias{"mac_ratio", OpField::mac_ratio},
    Alias{"vec_ratio", OpField::vec_ratio},
    Alias{"scalar_ratio", OpField::scalar_ratio},
    Alias{"mte1_ratio", OpField::mte1_ratio},
    Alias{"mte2_ratio", OpField::mte2_ratio},
    Alias{"mte3_ratio", OpField::mte3_ratio},
    Alias{"fixpipe_ratio", OpField::fixpipe_ratio},
    Alias{"read_main_memory_datas(kb)", OpField::read_kb},
    Alias{"write_main_memory_datas(kb)", OpField::write_kb},
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

}  // namespace

OpTablePlan plan_op_table(const CsvHeader& header) {
  OpTablePlan plan;
  bool has_name = false, has_dur = false;
  for (size_t i = 0; i < header.size(); ++i) {
    const std::string& original = header.names()[i];
    std::string lower = to_lower_ascii(original);
    OpColumn col;
    bool found = false;
    for (const auto& a : kIdentity) {
      if (lower == a.header) {
        col.field = a.field;
        found = true;
        break;
      }
    }
    if (!found) {
      std::string_view bare = lower;
      if (bare.rfind("aic_", 0) == 0) {
        col.side = Side::cube;
        bare.remove_prefix(4);
      } else if (bare.rfind("aiv_", 0) == 0) {
        col.side = Side::vector;
        bare.remove_prefix(4);
      }
      for (const auto& a : kMetrics) {
        if (bare == a.header) {
          col.field = a.field;
          found = true;
          break;
        }
      }
      if (!found) col.side = Side::none;
    }
    if (col.field == OpField::name) {
      has_name = true;
      plan.kernel_details = lower == "name";
    }
    has_dur = has_dur || col.field == OpField::dur;
    col.json_key.clear();
    store::append_json_string(col.json_key, original);
    col.json_key += ':';
    plan.columns.push_back(std::move(col));
  }
  if (!has_name) plan.missing.emplace_back("Name (or Op Name)");
  if (!has_dur) plan.missing.emplace_back("Duration(us) (or Task Duration(us))");
  return plan;
}

bool looks_like_op_table(const CsvHeader& header) {
  return header.find_any({"Name", "Op Name"}) &&
         header.find_any({"Duration(us)", "Task Duration(us)"});
}

size_t known_op_columns(const CsvHeader& header) {
  size_t n = 0;
  for (const auto& name : header.names()) {
    std::string lower = to_lower_ascii(name);
    for (const auto& a : kIdentity) {
      if (lower == a.header) {
        ++n;
        break;
      }
    }
  }
  return n;
}

std::string type_from_name(std::string_view name) {
  std::string_view s = name;
  if (s.rfind("trans_", 0) == 0) s.remove_prefix(6);
  // Drop trailing instance numbers: `_20`, `17`, `-1_18_186609_1`.
  for (;;) {
    size_t e = s.size();
    while (e > 0 && is_digit(s[e - 1])) --e;
    if (e == s.size()) break;
    if (e > 0 && (s[e - 1] == '_' || s[e - 1] == '-')) {
      // `hcom_allReduce__445_0` keeps the underscore that belongs to the type name.
      if (e >= 2 && s[e - 2] == '_') {
        s = s.substr(0, e - 1);
        break;
      }
      s = s.substr(0, e - 1);
    } else {
      s = s.substr(0, e);
      break;
    }
  }
  return s.empty() ? std::string(name) : std::string(s);
}

bool normalise_shapes_into(std::string_view cell, std::string& out) {
  out.clear();
  if (is_null_cell(cell)) return false;
  bool content = false;
  for (char c : cell) {
    if (c == '"') continue;
    content = content || (c != ';' && c != ' ' && c != '\t');
    out += c;
  }
  return content;
}

bool normalise_dtypes_into(std::string_view cell, std::string& out) {
  out.clear();
  if (is_null_cell(cell)) return false;
  size_t i = 0;
  while (i <= cell.size()) {
    size_t e = cell.find(';', i);
    if (e == std::string_view::npos) e = cell.size();
    std::string_view item = trim_blanks(cell.substr(i, e - i));
    if (item.rfind("DT_", 0) == 0) item.remove_prefix(3);
    if (i > 0) out += ';';
    out += item;
    i = e + 1;
  }
  return true;
}

std::optional<std::string> normalise_shapes(std::string_view cell) {
  std::string out;
  if (!normalise_shapes_into(cell, out)) return std::nullopt;
  return out;
}

std::optional<std::string> normalise_dtypes(std::string_view cell) {
  std::string out;
  if (!normalise_dtypes_into(cell, out)) return std::nullopt;
  return out;
}

std::string normalise_core(std::string_view cell, std::string_view name) {
  if (is_null_cell(cell)) return name.rfind("hcom_", 0) == 0 ? "HCCL" : "UNKNOWN";
  std::string core(cell);
  for (auto& c : core) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  if (core == "COMMUNICATION") core = "HCCL";
  return core;
}

}  // namespace perfsage::collectors::ascend

#include "collectors/ascend/json_util.h"

#include <algorithm>

#include "collectors/common/csv_values.h"
#include "collectors/common/utf8.h"
#include "store/file_bytes.h"

namespace perfsage::collectors::ascend {

JsonInput load_json(const FileProbe& probe) {
  JsonInput in;
  in.text = store::read_file(probe.path, simdjson::SIMDJSON_PADDING);
  return in;
}

std::string json_error_where(const JsonInput& in, od::document& doc, simdjson::error_code e) {
  const char* loc = nullptr;
  size_t offset = in.text.size();
  // An unbalanced document is refused where it starts; the damage is at its end.
  if (e != simdjson::INCOMPLETE_ARRAY_OR_OBJECT &&
      doc.current_location().get(loc) == simdjson::SUCCESS)
    offset = in.offset_of(loc);
  return "byte offset " + std::to_string(offset) + ": " + simdjson::error_message(e);
}

namespace {
// Offset of the opening quote of a string the text never closes, or text.size().
size_t unclosed_string(std::string_view text) {
  bool in_string = false;
  size_t start = text.size();
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (in_string && c == '\\') {
      ++i;
    } else if (c == '"') {
      in_string = !in_string;
      if (in_string) start = i;
    }
  }
  return in_string ? start : text.size();
}
}  // namespace

size_t stage1_error_offset(std::string_view text, simdjson::error_code e) {
  if (e == simdjson::UTF8_ERROR) return first_invalid_utf8(text);
  if (e == simdjson::UNCLOSED_STRING) return unclosed_string(text);
  return text.size();
}

void iterate_or_fail(od::parser& parser, const JsonInput& in, od::document& doc,
                     CollectContext& ctx, std::string_view what) {
  auto err = parser.iterate(in.view()).get(doc);
  if (!err) return;
  size_t offset = stage1_error_offset(in.text, err);
  ctx.fail("byte offset " + std::to_string(offset) +
               (offset == in.text.size() ? " (end of input)" : "") + ": " +
               simdjson::error_message(err),
           what);
}

std::string close_before(std::string_view text, size_t damage, size_t max_depth) {
  damage = std::min(damage, text.size());
  std::string open;     // the brackets open at the current position
  std::string closers;  // those open after the best cut, as closing brackets
  size_t cut = 0;
  bool in_string = false;
  for (size_t i = 0; i < damage; ++i) {
    char c = text[i];
    if (in_string) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        open.push_back(c);
        break;
      case ']':
      case '}':
        if (open.empty() || open.back() != (c == ']' ? '[' : '{')) return {};  // not JSON
        open.pop_back();
        if (!open.empty() && open.back() == '[' && open.size() <= max_depth) {
          cut = i + 1;
          closers.assign(open.rbegin(), open.rend());
        }
        break;
      default:
        break;
    }
  }
  if (cut == 0) return {};
  std::string out(text.substr(0, cut));
  for (char c : closers) out.push_back(c == '[' ? ']' : '}');
  return out;
}

namespace {
std::string_view trim_token(std::string_view t) {
  while (!t.empty() &&
         (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t'))
    t.remove_suffix(1);
  return t;
}
}  // namespace

std::string_view scalar_text(od::value v) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return {};
  if (type == od::json_type::string) {
    std::string_view raw = trim_token(v.raw_json_token());
    if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"')
      return raw.substr(1, raw.size() - 2);
    return {};
  }
  if (type == od::json_type::number) return trim_token(v.raw_json_token());
  return {};
}

std::string_view raw_value(od::value v) {
  od::json_type type;
  if (v.type().get(type) != simdjson::SUCCESS) return {};
  std::string_view out;
  if (type == od::json_type::object) {
    od::object o;
    if (v.get_object().get(o) || o.raw_json().get(out)) return {};
    return out;
  }
  if (type == od::json_type::array) {
    od::array a;
    if (v.get_array().get(a) || a.raw_json().get(out)) return {};
    return out;
  }
  return trim_token(v.raw_json_token());
}

std::optional<int64_t> int_of(std::string_view text) {
  return opt_int(text);
}
std::optional<double> real_of(std::string_view text) {
  return opt_real(text);
}

char first_char(std::string_view head) {
  for (char c : head) {
    if (c == '\xEF' || c == '\xBB' || c == '\xBF') continue;  // BOM
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
  }
  return 0;
}

}  // namespace perfsage::collectors::ascend

namespace perfsage::collectors::ascend {

std::string_view key_text(const od::raw_json_string& key) {
  const char* p = key.raw();
  size_t n = 0;
  // The closing quote is the first one not escaped by an odd run of backslashes.
  for (;; ++n) {
    if (p[n] != '"') continue;
    size_t bs = 0;
    while (bs < n && p[n - 1 - bs] == '\\') ++bs;
    if (bs % 2 == 0) break;
  }
  return std::string_view(p, n);
}

std::string_view unquote(std::string_view raw) {
  if (raw.size() >= 2 && raw.front() == '"' && raw.back() == '"')
    return raw.substr(1, raw.size() - 2);
  return raw;
}

}  // namespace perfsage::collectors::ascend

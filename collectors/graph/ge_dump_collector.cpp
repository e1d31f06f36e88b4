#include "collectors/graph/ge_dump_collector.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/text_format.h>

#include <cctype>

#include "collectors/common/file_reader.h"
#include "collectors/graph/ge_model_records.h"
#include "collectors/graph/ge_text_blocks.h"
#include "ge/ge_ir.pb.h"

namespace perfsage::collectors::graph {
namespace {
namespace pb = google::protobuf;

std::string strip_suffixes(std::string name) {
  for (const char* suffix : {".gz", ".txt"}) {
    std::string s(suffix);
    if (name.size() > s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0) {
      name.resize(name.size() - s.size());
    }
  }
  return name;
}

bool named_like_dump(const std::string& file_name) {
  std::string stem = strip_suffixes(file_name);
  return file_name.rfind("ge_proto_", 0) == 0 && stem.size() < file_name.size();
}

// The text starts (after blanks and # comments) with a ModelDef field: `graph {`,
// `name:`, `attr {`, and somewhere in the head an `op {` block follows.
bool looks_like_model_text(std::string_view head) {
  size_t i = 0;
  while (i < head.size()) {
    if (std::isspace(static_cast<unsigned char>(head[i]))) {
      ++i;
    } else if (head[i] == '#') {
      while (i < head.size() && head[i] != '\n') ++i;
    } else {
      break;
    }
  }
  auto rest = head.substr(i);
  auto starts = [&](std::string_view word) {
    if (rest.substr(0, word.size()) != word) return false;
    auto after = rest.substr(word.size());
    size_t j = after.find_first_not_of(" \t");
    return j != std::string_view::npos && (after[j] == '{' || after[j] == ':');
  };
  if (!starts("graph")) return false;
  return head.find("op {") != std::string_view::npos || head.find("op{") != std::string_view::npos;
}

// Collects parser messages with 1-based line:column; unknown fields arrive as warnings.
class Errors : public pb::io::ErrorCollector {
 public:
  explicit Errors(int line_offset) : line_offset_(line_offset) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (error_.empty()) error_ = where(line, column) + ": " + message;
  }
  void AddWarning(int line, pb::io::ColumnNumber column, const std::string& message) override {
    if (warnings_++ == 0) first_warning_ = where(line, column) + ": " + message;
  }
  const std::string& error() const { return error_; }
  int warnings() const { return warnings_; }
  const std::string& first_warning() const { return first_warning_; }

 private:
  std::string where(int line, int column) const {
    return std::to_string(line + line_offset_ + 1) + ":" + std::to_string(column + 1);
  }
  int line_offset_;
  std::string error_, first_warning_;
  int warnings_ = 0;
};

struct ParseResult {
  bool ok = false;
  std::string error;  // "line:col: message"
  int unknown_fields = 0;
  std::string first_unknown;
};

ParseResult parse_text(std::string_view text, int line_offset, ge::proto::ModelDef* model) {
  Errors errors(line_offset);
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&errors);
  parser.AllowUnknownField(true);
  parser.AllowUnknownExtension(true);
  pb::io::ArrayInputStream in(text.data(), static_cast<int>(text.size()));
  ParseResult r;
  r.ok = parser.Parse(&in, model);
  r.error = errors.error();
  if (!r.ok && r.error.empty()) r.error = std::to_string(line_offset + 1) + ":1: parse failed";
  r.unknown_fields = errors.warnings();
  r.first_unknown = errors.first_warning();
  return r;
}

constexpr const char* kExpected = "expected protobuf text of a GE ge.proto.ModelDef";

void note_unknown_fields(const ParseResult& r, CollectContext& ctx) {
  if (r.unknown_fields > 0) {
    ctx.warn(std::to_string(r.unknown_fields) +
             " field(s) not in perfsage's GE schema ignored (first at " + r.first_unknown + ")");
  }
}

// Lenient recovery: parse each top-level block on its own, keep those that parse.
void parse_blocks(std::string_view text, ge::proto::ModelDef* model, CollectContext& ctx) {
  for (const auto& b : split_top_level(text)) {
    ge::proto::ModelDef part;
    auto r = parse_text(text.substr(b.begin, b.end - b.begin), b.line, &part);
    if (!r.ok) {
      auto colon = r.error.find(": ");
      ctx.skip(b.closed ? "unparsable top-level block of a GE graph dump"
                        : "truncated top-level block of a GE graph dump",
               r.error.substr(0, colon) + " (" + r.error.substr(colon + 2) + ")");
      continue;
    }
    note_unknown_fields(r, ctx);
    model->MergeFrom(part);
  }
}

// The chip a graph was compiled for, from the GE option ge.socVersion.
std::string soc_version(const ge::proto::ModelDef& model) {
  for (const auto& g : model.graph()) {
    for (const auto& [key, v] : g.attr()) {
      if (v.value_case() != ge::proto::AttrDef::kFunc) continue;
      auto it = v.func().attr().find("ge.socVersion");
      if (it != v.func().attr().end() && !it->second.s().empty()) return it->second.s();
    }
  }
  return {};
}
}  // namespace

std::string ge_dump_stage(const std::string& file_name) {
  std::string stem = strip_suffixes(file_name);
  if (stem.rfind("ge_proto_", 0) != 0) return {};
  size_t i = 9;
  while (i < stem.size() && std::isdigit(static_cast<unsigned char>(stem[i]))) ++i;
  if (i == 9 || i >= stem.size() || stem[i] != '_') return {};
  std::string rest = stem.substr(i + 1);
  if (rest.rfind("graph_", 0) == 0) {  // ge_proto_<seq>_graph_<id>_<Stage>
    size_t j = 6;
    while (j < rest.size() && std::isdigit(static_cast<unsigned char>(rest[j]))) ++j;
    if (j > 6 && j < rest.size() && rest[j] == '_') rest = rest.substr(j + 1);
  }
  return rest;
}

int GeDumpCollector::detect(const FileProbe& probe) const {
  bool name = named_like_dump(probe.path.filename().string());
  bool content = looks_like_model_text(probe.head);
  if (name && content) return 95;
  if (content) return 70;
  // A file named like a dump but empty or damaged at its start: claim it, to say what is wrong.
  if (name) return 40;
  return 0;
}

void GeDumpCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  std::string text = read_file(probe.path);
  if (text.size() > static_cast<size_t>(INT32_MAX)) {
    ctx.fail("byte 0", "GE graph dump larger than 2 GiB; protobuf's text parser cannot read it");
  }
  if (text.find_first_not_of(" \t\r\n") == std::string::npos) {
    ctx.skip("empty GE graph dump", "1:1 (" + std::string(kExpected) + ")");
    return;
  }
  pb::Arena arena;
  auto* model = pb::Arena::CreateMessage<ge::proto::ModelDef>(&arena);
  auto r = parse_text(text, 0, model);
  if (r.ok) {
    note_unknown_fields(r, ctx);
  } else if (ctx.mode() == Mode::strict) {
    auto colon = r.error.find(": ");
    ctx.fail(r.error.substr(0, colon), r.error.substr(colon + 2) + " (" + kExpected + ")");
  } else {
    model->Clear();
    parse_blocks(text, model, ctx);
  }
  std::string().swap(text);  // the records are built from the parsed model only
  if (model->graph_size() == 0) {
    ctx.skip("no graph in GE graph dump", std::string("1:1 (") + kExpected + ")");
    return;
  }
  std::string stage = ge_dump_stage(probe.path.filename().string());
  emit_ge_model(*model, stage.empty() ? "ge" : "ge:" + stage, ctx);

  auto& hints = ctx.hints();
  if (hints.framework.empty()) hints.framework = "ge";
  if (hints.device.empty()) hints.device = "ascend";
  if (hints.chip.empty()) hints.chip = soc_version(*model);
}

}  // namespace perfsage::collectors::graph

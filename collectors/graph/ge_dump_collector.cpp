#include "collectors/graph/ge_dump_collector.h"

#include <google/protobuf/arena.h>

#include <algorithm>
#include <cctype>
#include <thread>

#include "collectors/graph/ge_attr_value.h"
#include "collectors/graph/ge_model_records.h"
#include "collectors/graph/ge_text_blocks.h"
#include "collectors/graph/ge_text_parse.h"
#include "ge/ge_ir.pb.h"
#include "store/count_text.h"
#include "store/file_bytes.h"

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

constexpr const char* kExpected = "expected protobuf text of a GE ge.proto.ModelDef";

void note_unknown_fields(const TextParse& r, CollectContext& ctx) {
  if (r.unknown_fields > 0) {
    ctx.warn(store::count_text(r.unknown_fields, "field") +
             " not in perfsage's GE schema ignored (first at " + r.first_unknown + ")");
  }
}

// Lenient recovery: parse each top-level block on its own, keep those that parse.
void parse_blocks(std::string_view text, pb::Arena& arena,
                  std::vector<const ge::proto::ModelDef*>& parts, CollectContext& ctx) {
  for (const auto& b : split_top_level(text)) {
    auto* part = pb::Arena::CreateMessage<ge::proto::ModelDef>(&arena);
    auto r = parse_model_text(text.substr(b.begin, b.end - b.begin), b.line, part);
    if (!r.ok) {
      ctx.skip(b.closed ? "unparsable top-level block of a GE graph dump"
                        : "truncated top-level block of a GE graph dump",
               r.where + " (" + r.message + ")");
      continue;
    }
    note_unknown_fields(r, ctx);
    parts.push_back(part);
  }
}

// Threads for parsing: one per 4 MB of text, up to the cores there are (at most 8).
unsigned parse_threads(size_t bytes) {
  unsigned hw = std::max(1u, std::min(8u, std::thread::hardware_concurrency()));
  return static_cast<unsigned>(std::clamp<size_t>(bytes / (4u << 20), 1, hw));
}

// The chip a graph was compiled for, from the GE option ge.socVersion.
std::string soc_version(const std::vector<const ge::proto::ModelDef*>& parts) {
  if (parts.empty()) return {};
  for (const auto& g : parts.front()->graph()) {
    for (const auto& e : g.attr()) {
      if (e.value().value_case() != ge::proto::AttrDef::kFunc) continue;
      const auto* soc = find_attr(e.value().func().attr(), "ge.socVersion");
      if (soc && !soc->s().empty()) return soc->s();
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
  store::InputBytes file(probe.path);
  std::string_view text = file.view();
  if (text.find_first_not_of(" \t\r\n") == std::string_view::npos) {
    ctx.skip("empty GE graph dump", "1:1 (" + std::string(kExpected) + ")");
    return;
  }
  pb::Arena arena;
  std::vector<const ge::proto::ModelDef*> parts;
  auto r = parse_model_parallel(text, parse_threads(text.size()), arena, parts);
  if (r.ok) {
    note_unknown_fields(r, ctx);
  } else if (ctx.mode() == Mode::strict) {
    ctx.fail(r.where, r.message + " (" + kExpected + ")");
  } else {
    parts.clear();
    parse_blocks(text, arena, parts, ctx);
  }
  file.release();  // the records are built from the parsed model only
  size_t graphs = 0;
  for (const auto* p : parts) graphs += static_cast<size_t>(p->graph_size());
  if (graphs == 0) {
    ctx.skip("no graph in GE graph dump", std::string("1:1 (") + kExpected + ")");
    return;
  }
  std::string stage = ge_dump_stage(probe.path.filename().string());
  emit_ge_model(parts, stage.empty() ? "ge" : "ge:" + stage, ctx);

  auto& hints = ctx.hints();
  if (hints.framework.empty()) hints.framework = "ge";
  if (hints.device.empty()) hints.device = "ascend";
  if (hints.chip.empty()) hints.chip = soc_version(parts);
}

}  // namespace perfsage::collectors::graph

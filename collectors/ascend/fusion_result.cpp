// fusion_result.json → store::FusionStat, one row per (graph, pass, kind).
#include <vector>

#include "collectors/ascend/json_util.h"
#include "collectors/ascend/layout.h"
#include "collectors/ascend/fusion_result.h"
#include "collectors/common/csv_values.h"

namespace perfsage::collectors::ascend {

namespace {

class Reader {
 public:
  Reader(const JsonInput& in, od::document& doc, CollectContext& ctx)
      : in_(in), doc_(doc), ctx_(ctx) {}

  [[noreturn]] void fail(simdjson::error_code err, std::string_view what) {
    ctx_.fail(json_error_where(in_, doc_, err), what);
  }

  // One record: {"session_and_graph_id": "0_11", "graph_fusion": {...}, "ub_fusion": {...}}.
  // The id may come after the passes, so rows are written at the end of the record.
  void record(od::value v, size_t index) {
    od::object obj;
    if (auto err = v.get_object().get(obj)) fail(err, "fusion record must be an object");
    std::vector<store::FusionStat> rows;
    std::optional<std::string> graph;
    for (auto field : obj) {
      od::field f;
      if (auto err = std::move(field).get(f)) fail(err, "malformed fusion record");
      std::string_view key = key_text(f.key());
      if (key == "session_and_graph_id") {
        graph = std::string(scalar_text(f.value()));
      } else if (key == "graph_fusion" || key == "ub_fusion") {
        passes(f.value(), std::string(key), rows, index);
      } else if (raw_value(f.value()).empty()) {
        fail(simdjson::TAPE_ERROR, "malformed value");
      }
    }
    for (auto& r : rows) {
      r.graph = graph;
      ctx_.out().add(r);
      ctx_.record();
    }
  }

 private:
  void passes(od::value v, const std::string& kind, std::vector<store::FusionStat>& rows,
              size_t index) {
    od::object obj;
    if (auto err = v.get_object().get(obj)) fail(err, kind + " must be an object");
    for (auto field : obj) {
      od::field f;
      if (auto err = std::move(field).get(f)) fail(err, "malformed " + kind);
      store::FusionStat s;
      s.kind = kind;
      s.pass = std::string(key_text(f.key()));
      od::object counts;
      if (auto err = f.value().get_object().get(counts)) fail(err, "pass entry must be an object");
      bool ok = true;
      for (auto cf : counts) {
        od::field c;
        if (auto err = std::move(cf).get(c)) fail(err, "malformed pass entry");
        std::string_view k = key_text(c.key());
        std::string_view text = scalar_text(c.value());  // counts are JSON strings or numbers
        std::optional<int64_t>* slot = k == "match_times"    ? &s.match_times
                                       : k == "effect_times" ? &s.effect_times
                                                             : nullptr;
        if (!slot) continue;
        int64_t n;
        Cell cell = parse_int(text, n);
        if (cell == Cell::value)
          *slot = n;
        else if (cell == Cell::bad)
          ok = false;
      }
      if (!ok) {
        ctx_.skip("count is not an integer", "record " + std::to_string(index) + " pass " + s.pass);
        continue;
      }
      rows.push_back(std::move(s));
    }
  }

  const JsonInput& in_;
  od::document& doc_;
  CollectContext& ctx_;
};

}  // namespace

int FusionResultCollector::detect(const FileProbe& probe) const {
  char c = first_char(probe.head);
  if (c != '[' && c != '{') return 0;
  bool content = probe.head.find("\"graph_fusion\"") != std::string::npos ||
                 probe.head.find("\"ub_fusion\"") != std::string::npos;
  if (!content) return 0;
  return base_name(probe.path).rfind("fusion_result", 0) == 0 ? 100 : 40;
}

void FusionResultCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  JsonInput in = load_json(probe);
  od::parser parser;
  od::document doc;
  Reader r(in, doc, ctx);
  iterate_or_fail(parser, in, doc, ctx, "expected JSON");
  od::json_type type;
  if (auto err = doc.type().get(type)) r.fail(err, "expected a JSON array or object");
  if (type == od::json_type::array) {
    od::array list;
    if (auto err = doc.get_array().get(list)) r.fail(err, "expected a JSON array");
    size_t i = 0;
    for (auto item : list) {
      od::value v;
      if (auto err = item.get(v)) r.fail(err, "malformed array element");
      r.record(v, i++);
    }
  } else {
    // Older writers produce a single record object.
    od::value v;
    if (auto err = doc.get_value().get(v)) r.fail(err, "expected a JSON object");
    r.record(v, 0);
  }
  if (ctx.hints().device.empty()) ctx.hints().device = "ascend";
}

}  // namespace perfsage::collectors::ascend

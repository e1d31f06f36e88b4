// communication.json → store::CommOp.
//
// Per step and per collective/p2p op, one row carries the time breakdown (transport NULL) and
// one further row per transport (HCCS, RDMA, PCIE, SDMA, SIO) carries that link's size, time and
// bandwidth, so sums over time columns never count an op twice. "Total Op Info" is an aggregate
// and is left out.
#include <vector>

#include "collectors/ascend/json_util.h"
#include "collectors/ascend/layout.h"
#include "collectors/ascend/small_json.h"
#include "collectors/common/csv_values.h"

namespace perfsage::collectors::ascend {

namespace {

constexpr double kBytesPerMB = 1024.0 * 1024.0;

class Reader {
 public:
  Reader(const JsonInput& in, od::document& doc, CollectContext& ctx, int64_t rank)
      : in_(in), doc_(doc), ctx_(ctx), rank_(rank) {}

  void fail(simdjson::error_code err, std::string_view what) {
    ctx_.fail(json_error_where(in_, doc_, err), what);
  }

  // Iterates an object's fields, calling fn(key, value).
  template <class Fn>
  void each(od::value v, std::string_view what, Fn&& fn) {
    od::object obj;
    if (auto err = v.get_object().get(obj)) fail(err, what);
    for (auto field : obj) {
      od::field f;
      if (auto err = std::move(field).get(f)) fail(err, what);
      fn(key_text(f.key()), f.value());
    }
  }
  void skip(od::value v) {
    if (raw_value(v).empty()) fail(simdjson::TAPE_ERROR, "malformed value");
  }

  void op(std::optional<int64_t> step, std::string_view kind, std::string_view name, od::value v) {
    store::CommOp base;
    base.rank = rank_;
    base.step = step;
    base.name = std::string(name.substr(0, name.find('@')));
    base.type = std::string(kind);
    std::vector<store::CommOp> links;
    each(v, "op entry must be an object", [&](std::string_view key, od::value section) {
      if (key == "Communication Time Info") {
        each(section, "Communication Time Info must be an object",
             [&](std::string_view k, od::value x) { time_info(base, k, scalar_text(x)); });
      } else if (key == "Communication Bandwidth Info") {
        each(section, "Communication Bandwidth Info must be an object",
             [&](std::string_view transport, od::value info) {
               store::CommOp link;
               link.rank = rank_;
               link.step = step;
               link.name = base.name;
               link.type = base.type;
               link.transport = std::string(transport);
               each(info, "bandwidth entry must be an object",
                    [&](std::string_view k, od::value x) { link_info(link, k, x); });
               links.push_back(std::move(link));
             });
      } else {
        skip(section);
      }
    });
    emit(base);
    for (auto& l : links) emit(l);
  }

 private:
  static std::optional<double> ms_to_us(std::string_view t) {
    auto v = opt_real(t);
    return v ? std::optional<double>(*v * 1000.0) : std::nullopt;
  }

  void time_info(store::CommOp& op, std::string_view k, std::string_view text) {
    if (k == "Start Timestamp(us)") {
      int64_t ns;
      if (parse_us_to_ns(text, ns) == Cell::value) op.start_ns = ns;
    } else if (k == "Elapse Time(ms)") {
      int64_t ns;
      if (parse_ms_to_ns(text, ns) == Cell::value) op.dur_ns = ns;
    } else if (k == "Transit Time(ms)") {
      op.transit_us = ms_to_us(text);
    } else if (k == "Wait Time(ms)") {
      op.wait_us = ms_to_us(text);
    } else if (k == "Synchronization Time(ms)") {
      op.sync_us = ms_to_us(text);
    } else if (k == "Idle Time(ms)") {
      op.idle_us = ms_to_us(text);
    }
  }

  void link_info(store::CommOp& link, std::string_view k, od::value x) {
    if (k == "Transit Size(MB)") {
      auto mb = opt_real(scalar_text(x));
      if (mb) link.bytes = *mb * kBytesPerMB;
    } else if (k == "Transit Time(ms)") {
      link.transit_us = ms_to_us(scalar_text(x));
    } else if (k == "Bandwidth(GB/s)") {
      link.bandwidth_gbps = opt_real(scalar_text(x));
    } else {
      skip(x);  // Large Packet Ratio, Size Distribution
    }
  }

  void emit(const store::CommOp& op) {
    ctx_.out().add(op);
    ctx_.record();
  }

  const JsonInput& in_;
  od::document& doc_;
  CollectContext& ctx_;
  int64_t rank_;
};

}  // namespace

int CommunicationCollector::detect(const FileProbe& probe) const {
  if (first_char(probe.head) != '{') return 0;
  if (probe.head.find("\"Communication Time Info\"") == std::string::npos &&
      probe.head.find("\"Communication Bandwidth Info\"") == std::string::npos)
    return 0;
  std::string name = base_name(probe.path);
  return name.rfind("communication", 0) == 0 && name.find("matrix") == std::string::npos ? 100 : 40;
}

void CommunicationCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  JsonInput in = load_json(probe);
  od::parser parser;
  od::document doc;
  Reader r(in, doc, ctx, locate(probe.path).rank);
  iterate_or_fail(parser, in, doc, ctx, "expected a JSON object");
  od::value top;
  if (auto err = doc.get_value().get(top)) r.fail(err, "expected a JSON object");
  r.each(top, "expected a JSON object of steps", [&](std::string_view step_key, od::value step) {
    // "step1" → 1; a file without steps uses other keys, kept as step NULL.
    std::optional<int64_t> number;
    if (step_key.rfind("step", 0) == 0) number = opt_int(step_key.substr(4));
    r.each(step, "step entry must be an object", [&](std::string_view kind, od::value ops) {
      r.each(ops, "collective/p2p entry must be an object",
             [&](std::string_view name, od::value op) {
               if (name == "Total Op Info")
                 r.skip(op);
               else
                 r.op(number, kind, name, op);
             });
    });
  });
  if (ctx.hints().device.empty()) ctx.hints().device = "ascend";
}

}  // namespace perfsage::collectors::ascend

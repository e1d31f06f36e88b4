// communication.json and cluster_communication.json → store::CommOp.
//
// A rank's communication.json nests step → collective|p2p → op → info; msprof-analyze's
// cluster_communication.json nests communication group → step → op → rank → info (formats.md
// §8.1, and msprof-analyze's ClusterCommunicationDataset). Per step, op and rank, one row
// carries the time breakdown (transport NULL) and one further row per transport (HCCS, RDMA,
// PCIE, SDMA, SIO) carries that link's size, time, bandwidth, large-packet ratio and size
// distribution, so sums over time columns never count an op twice. "Total Op Info" is an
// aggregate and is left out. An op entry without a single number is not stored: it is a
// skipped record with its reason, never a row of NULLs.
#include <cstdio>
#include <string>
#include <vector>

#include "collectors/ascend/json_util.h"
#include "collectors/ascend/layout.h"
#include "collectors/ascend/communication.h"
#include "collectors/common/csv_values.h"

namespace perfsage::collectors::ascend {

namespace {

// The files' MB are 10^6 bytes: msprof-analyze's own test data has 20 MiB as 20.97152 MB and
// 31 packets of 0.65536 MB (640 KiB) as 20.31616 MB.
constexpr double kBytesPerMB = 1e6;

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

  // One op entry of `rank` (the file's rank, or the rank key of a cluster file).
  void op(std::optional<int64_t> step, std::string_view kind, std::string_view name, od::value v,
          int64_t rank, const std::optional<std::string>& group) {
    store::CommOp base;
    base.rank = rank;
    base.step = step;
    base.name = std::string(name.substr(0, name.find('@')));
    if (!kind.empty()) base.type = std::string(kind);
    base.group = group;
    std::vector<store::CommOp> links;
    each(v, "op entry must be an object", [&](std::string_view key, od::value section) {
      if (key == "Communication Time Info") {
        each(section, "Communication Time Info must be an object",
             [&](std::string_view k, od::value x) { time_info(base, k, scalar_text(x)); });
      } else if (key == "Communication Bandwidth Info") {
        each(section, "Communication Bandwidth Info must be an object",
             [&](std::string_view transport, od::value info) {
               store::CommOp link;
               link.rank = rank;
               link.step = step;
               link.name = base.name;
               link.type = base.type;
               link.group = group;
               link.transport = std::string(transport);
               each(info, "bandwidth entry must be an object",
                    [&](std::string_view k, od::value x) { link_info(link, k, x); });
               links.push_back(std::move(link));
             });
      } else {
        skip(section);
      }
    });
    bool any = base.start_ns || base.dur_ns || base.transit_us || base.wait_us || base.sync_us ||
               base.idle_us;
    for (const auto& l : links) any = any || l.bytes || l.transit_us || l.bandwidth_gbps;
    if (!any) {
      ctx_.skip("communication op without any time or size", std::string(name));
      return;
    }
    emit(base);
    for (auto& l : links) emit(l);
  }

  // The ops of one step: a rank's file (kind collective|p2p → ops) or a cluster file (ops →
  // ranks), told apart by the keys under the step.
  void step_entry(std::optional<int64_t> step, od::value v,
                  const std::optional<std::string>& group) {
    each(v, "step entry must be an object", [&](std::string_view key, od::value inner) {
      if (!group) {  // communication.json: collective / p2p → ops
        each(inner, "collective/p2p entry must be an object",
             [&](std::string_view name, od::value op_value) {
               if (name == "Total Op Info")
                 skip(op_value);
               else
                 op(step, key, name, op_value, rank_, group);
             });
        return;
      }
      // cluster_communication.json: op → rank → info
      if (key == "Total Op Info") return skip(inner);
      std::string_view kind = key.find("send") != std::string_view::npos ||
                                      key.find("receive") != std::string_view::npos ||
                                      key.find("Send") != std::string_view::npos ||
                                      key.find("Recv") != std::string_view::npos
                                  ? "p2p"
                                  : "collective";
      each(inner, "op entry must be an object of ranks",
           [&](std::string_view rank_key, od::value info) {
             auto rank = opt_int(rank_key);
             if (!rank) {
               skip(info);
               ctx_.skip("cluster communication entry under a key that is not a rank",
                         std::string(key).append(" / ").append(rank_key));
               return;
             }
             op(step, kind, key, info, *rank, group);
           });
    });
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
    } else if (k == "Large Packet Ratio") {
      link.large_packet_ratio = opt_real(scalar_text(x));
    } else if (k == "Size Distribution") {
      // {"<size MB>": [count, total ms], ...} → [[size_mb, count, ms], ...]
      std::string packets = "[";
      each(x, "Size Distribution must be an object", [&](std::string_view size, od::value pair) {
        auto mb = opt_real(size);
        std::vector<double> nums;
        od::array arr;
        if (pair.get_array().get(arr)) return skip(pair);
        for (auto item : arr) {
          od::value iv;
          if (std::move(item).get(iv)) break;
          if (auto n = opt_real(scalar_text(iv))) nums.push_back(*n);
        }
        if (!mb || nums.empty()) return;
        if (packets.size() > 1) packets += ',';
        packets.append("[").append(number(*mb)).append(",").append(number(nums[0]));
        packets.append(",").append(number(nums.size() > 1 ? nums[1] : 0.0)).append("]");
      });
      link.packets = packets + "]";
    } else {
      skip(x);
    }
  }

  static std::string number(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.10g", v);
    return buf;
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
  bool named = name.rfind("communication", 0) == 0 || name.rfind("cluster_communication", 0) == 0;
  return named && name.find("matrix") == std::string::npos ? 100 : 40;
}

void CommunicationCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  JsonInput in = load_json(probe);
  od::parser parser;
  od::document doc;
  Reader r(in, doc, ctx, locate(probe.path).rank);
  iterate_or_fail(parser, in, doc, ctx, "expected a JSON object");
  od::value top;
  if (auto err = doc.get_value().get(top)) r.fail(err, "expected a JSON object");
  // "step1" → 1; "step" or other keys: step NULL.
  auto step_number = [](std::string_view key) {
    return key.rfind("step", 0) == 0 ? opt_int(key.substr(4)) : std::nullopt;
  };
  r.each(top, "expected a JSON object of steps or communication groups",
         [&](std::string_view key, od::value v) {
           if (key.rfind("step", 0) == 0) {
             r.step_entry(step_number(key), v, std::nullopt);
             return;
           }
           // A communication group (cluster_communication.json): its steps.
           std::optional<std::string> group = std::string(key);
           r.each(v, "communication group entry must be an object",
                  [&](std::string_view step_key, od::value step) {
                    r.step_entry(step_number(step_key), step, group);
                  });
         });
  if (ctx.hints().device.empty()) ctx.hints().device = "ascend";
}

}  // namespace perfsage::collectors::ascend

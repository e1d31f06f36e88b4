#include "collectors/ascend/timeline.h"

#include <algorithm>
#include <climits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "collectors/ascend/intervals.h"
#include "collectors/ascend/json_util.h"
#include "collectors/ascend/layout.h"
#include "collectors/common/csv_values.h"
#include "store/count_text.h"
#include "store/json_text.h"

namespace perfsage::collectors::ascend {

namespace {

enum class Proc { python, cann, hardware, overlap, hccl, other };

Proc classify_process(std::string_view name) {
  if (name == "Python" || name == "CPU" || name == "Framework") return Proc::python;
  if (name == "CANN" || name == "AscendCL" || name == "Runtime") return Proc::cann;
  if (name == "Ascend Hardware" || name == "Task Scheduler") return Proc::hardware;
  if (name == "Overlap Analysis") return Proc::overlap;
  if (name == "HCCL" || name.rfind("Communication", 0) == 0) return Proc::hccl;
  return Proc::other;
}

struct Event {
  std::string_view ph, cat, pid, tid, ts, dur, id;
  std::string name;
  std::string args;  // rebuilt args object, "" when absent
  std::string_view task_type, stream_id, connection_id, correlation_id, meta_name;
  std::string_view input_dims, input_type;
  void clear() {
    ph = cat = pid = tid = ts = dur = id = {};
    name.clear();
    args.clear();
    task_type = stream_id = connection_id = correlation_id = meta_name = {};
    input_dims = input_type = {};
  }
};

simdjson::error_code read_args(od::value v, Event& e) {
  od::object args;
  if (auto err = v.get_object().get(args)) return err;
  e.args = "{";
  for (auto field : args) {
    od::field f;
    if (auto err = std::move(field).get(f)) return err;
    std::string_view key = key_text(f.key());
    std::string_view raw = raw_value(f.value());
    if (raw.empty()) return simdjson::TAPE_ERROR;
    if (e.args.size() > 1) e.args += ',';
    e.args += '"';
    e.args += key;
    e.args += "\":";
    e.args += raw;
    if (key == "Task Type")
      e.task_type = unquote(raw);
    else if (key == "Stream Id")
      e.stream_id = unquote(raw);
    else if (key == "connection_id")
      e.connection_id = unquote(raw);
    else if (key == "correlation_id")
      e.correlation_id = unquote(raw);
    else if (key == "name")
      e.meta_name = unquote(raw);
    else if (key == "Input Dims")
      e.input_dims = raw;
    else if (key == "Input type")
      e.input_type = raw;
  }
  e.args += '}';
  return simdjson::SUCCESS;
}

simdjson::error_code read_event(od::value v, Event& e) {
  e.clear();
  od::object obj;
  if (auto err = v.get_object().get(obj)) return err;
  for (auto field : obj) {
    od::field f;
    if (auto err = std::move(field).get(f)) return err;
    auto key = f.key();
    od::value val = f.value();
    if (key == "ph")
      e.ph = scalar_text(val);
    else if (key == "name") {
      std::string_view s;
      if (val.get_string().get(s) == simdjson::SUCCESS) e.name.assign(s);
    } else if (key == "cat")
      e.cat = scalar_text(val);
    else if (key == "pid")
      e.pid = scalar_text(val);
    else if (key == "tid")
      e.tid = scalar_text(val);
    else if (key == "id")
      e.id = scalar_text(val);
    else if (key == "ts")
      e.ts = scalar_text(val);
    else if (key == "dur")
      e.dur = scalar_text(val);
    else if (key == "args") {
      if (auto err = read_args(val, e)) return err;
    } else if (raw_value(val).empty()) {
      return simdjson::TAPE_ERROR;  // skip the value, failing on malformed input
    }
  }
  return simdjson::SUCCESS;
}

// Opens the event array of a trace in array form or object form (`traceEvents`).
simdjson::error_code open_events(od::document& doc, od::array& events) {
  od::json_type type;
  if (auto err = doc.type().get(type)) return err;
  if (type == od::json_type::array) return doc.get_array().get(events);
  if (type != od::json_type::object) return simdjson::INCORRECT_TYPE;
  od::value v;
  if (auto err = doc.find_field_unordered("traceEvents").get(v)) return err;
  return v.get_array().get(events);
}

bool starts_with_ci(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i) {
    char a = s[i], b = prefix[i];
    if (a >= 'A' && a <= 'Z') a = static_cast<char>(a - 'A' + 'a');
    if (a != b) return false;
  }
  return true;
}

bool contains_ci(std::string_view s, std::string_view needle) {
  for (size_t i = 0; i + needle.size() <= s.size(); ++i) {
    if (starts_with_ci(s.substr(i), needle)) return true;
  }
  return false;
}

struct ProfilerStep {
  int64_t number, start, end;
};

// Everything the second pass needs, and the per-step accumulators.
class Builder {
 public:
  Builder(CollectContext& ctx, Location loc) : ctx_(ctx), loc_(std::move(loc)) {}

  std::unordered_map<std::string_view, Proc> procs;  // by raw pid text
  std::map<std::string, int64_t> unused;             // event kind → count, for warnings

  void metadata(const Event& e) {
    if (e.name == "process_name") procs[e.pid] = classify_process(e.meta_name);
  }

  // Flow ends of pass 1. HostToDevice flows link a CANN call (start inside it) to the device
  // task (end at its start): their id becomes both sides' correlation. async_npu flows link a
  // framework op to the device task: their id becomes the task's external_id.
  void flow(const Event& e) {
    int64_t ts;
    auto id = opt_int(e.id);
    if (!id || parse_us_to_ns(e.ts, ts) != Cell::value) return;
    bool h2d = e.cat == "HostToDevice", npu = e.cat == "async_npu";
    if (!h2d && !npu) return;
    if (e.ph == "f") {
      auto& ends = flow_ends_[{e.pid, e.tid, ts}];
      (h2d ? ends.first : ends.second) = *id;
    } else if (e.ph == "s" && h2d) {
      flow_starts_[{e.pid, e.tid}].emplace_back(ts, *id);
    }
  }
  void seal_flows() {
    for (auto& [thread, starts] : flow_starts_) std::sort(starts.begin(), starts.end());
  }

  void event(const Event& e, size_t index) {
    if (e.ph != "X") {
      ++unused[e.ph == "s" || e.ph == "f" || e.ph == "t" ? "flow"
                                                         : "ph '" + std::string(e.ph) + "'"];
      return;
    }
    int64_t start = 0, dur = 0;
    if (parse_us_to_ns(e.ts, start) != Cell::value) {
      ctx_.skip("missing or bad ts", "event " + std::to_string(index));
      return;
    }
    Cell d = parse_us_to_ns(e.dur, dur);
    if (d == Cell::bad || dur < 0) {
      ctx_.skip("bad dur", "event " + std::to_string(index));
      return;
    }
    auto it = procs.find(e.pid);
    Proc proc = it == procs.end() ? Proc::other : it->second;
    switch (proc) {
      case Proc::python:
        host(e, python_kind(e, start, dur), start, dur);
        break;
      case Proc::cann:
        host(e, "api", start, dur);
        break;
      case Proc::hardware:
        device(e, "kernel", start, dur);
        break;
      case Proc::hccl:
        device(e, "communication", start, dur);
        break;
      case Proc::overlap: {
        device(e, "overlap", start, dur);
        overlap_[e.name].add(start, start + dur);
        break;
      }
      case Proc::other:
        ++unused["X events of unnamed or other processes"];
        break;
    }
  }

  void finish() {
    for (auto& [name, set] : overlap_) set.seal();
    dataloader_.seal();
    optimizer_.seal();
    for (const auto& s : steps_) {
      store::Step st;
      st.rank = loc_.rank;
      st.step = s.number;
      st.source = "ProfilerStep";
      st.start_ns = s.start;
      st.dur_ns = s.end - s.start;
      auto share = [&](const char* name) -> std::optional<double> {
        auto it = overlap_.find(name);
        if (it == overlap_.end()) return std::nullopt;
        return static_cast<double>(it->second.covered(s.start, s.end)) / 1000.0;
      };
      st.computing_us = share("Computing");
      st.comm_us = share("Communication");
      st.comm_not_overlapped_us = share("Communication(Not Overlapped)");
      st.free_us = share("Free");
      if (st.comm_us && st.comm_not_overlapped_us)
        st.overlapped_us = *st.comm_us - *st.comm_not_overlapped_us;
      st.dataloader_us = static_cast<double>(dataloader_.covered(s.start, s.end)) / 1000.0;
      st.optimizer_us = static_cast<double>(optimizer_.covered(s.start, s.end)) / 1000.0;
      ctx_.out().add(st);
      ctx_.record();
    }
    for (const auto& [what, n] : unused) {
      ctx_.warn(store::count_text(n, std::string(what) + " event") + " not stored");
    }
  }

 private:
  std::string python_kind(const Event& e, int64_t start, int64_t dur) {
    if (e.name.rfind("ProfilerStep#", 0) == 0) {
      if (auto n = opt_int(std::string_view(e.name).substr(13)))
        steps_.push_back({*n, start, start + dur});
      return "user_annotation";
    }
    if (e.name.rfind("Optimizer.", 0) == 0) {
      if (e.name.rfind("Optimizer.step", 0) == 0) optimizer_.add(start, start + dur);
      return "user_annotation";
    }
    if (contains_ci(e.name, "dataloader")) {
      dataloader_.add(start, start + dur);
      return "user_annotation";
    }
    if (e.cat == "enqueue" || e.cat == "dequeue") return "queue";
    if (e.cat == "python_function") return "python";
    if (e.cat == "gc") return "gc";
    if (e.cat == "user_annotation") return "user_annotation";
    return "cpu_op";
  }

  void host(const Event& e, std::string kind, int64_t start, int64_t dur) {
    host_.rank = loc_.rank;
    host_.kind = std::move(kind);
    host_.name = e.name;
    host_.pid = opt_int(e.pid);
    host_.tid = opt_int(e.tid);
    host_.start_ns = start;
    host_.dur_ns = dur;
    host_.correlation = opt_int(e.connection_id.empty() ? e.correlation_id : e.connection_id);
    if (host_.kind == "api") {
      // The first HostToDevice flow that starts inside this call (nested calls share it).
      auto it = flow_starts_.find({e.pid, e.tid});
      if (it != flow_starts_.end()) {
        auto f = std::lower_bound(it->second.begin(), it->second.end(),
                                  std::pair<int64_t, int64_t>(start, INT64_MIN));
        if (f != it->second.end() && f->first <= start + dur) host_.correlation = f->second;
      }
    }
    host_.input_dims =
        e.input_dims.empty() ? std::nullopt : std::optional<std::string>(e.input_dims);
    host_.input_types =
        e.input_type.empty() ? std::nullopt : std::optional<std::string>(e.input_type);
    host_.args = e.args.empty() ? std::nullopt : std::optional<std::string>(e.args);
    ctx_.out().add(host_);
    ctx_.record();
  }

  void device(const Event& e, const char* kind, int64_t start, int64_t dur) {
    dev_.rank = loc_.rank;
    dev_.kind = kind;
    dev_.name = e.name;
    dev_.device = loc_.device_id;
    dev_.stream = opt_int(e.stream_id);
    if (!dev_.stream && kind == std::string_view("kernel")) dev_.stream = opt_int(e.tid);
    dev_.start_ns = start;
    dev_.dur_ns = dur;
    dev_.correlation = opt_int(e.connection_id);
    dev_.external_id.reset();
    auto ends = flow_ends_.find({e.pid, e.tid, start});
    if (ends != flow_ends_.end()) {
      if (ends->second.first) dev_.correlation = ends->second.first;
      dev_.external_id = ends->second.second;
    }
    dev_.args = e.args.empty() ? std::nullopt : std::optional<std::string>(e.args);
    ctx_.out().add(dev_);
    ctx_.record();
  }

  CollectContext& ctx_;
  Location loc_;
  store::HostEvent host_;
  store::DeviceEvent dev_;
  std::vector<ProfilerStep> steps_;
  std::map<std::tuple<std::string_view, std::string_view, int64_t>,
           std::pair<std::optional<int64_t>, std::optional<int64_t>>>
      flow_ends_;
  std::map<std::pair<std::string_view, std::string_view>, std::vector<std::pair<int64_t, int64_t>>>
      flow_starts_;
  std::map<std::string, SpanSet> overlap_;
  SpanSet dataloader_, optimizer_;
};

bool named_like_timeline(const std::string& name) {
  auto json = name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0;
  return json && (name.rfind("trace_view", 0) == 0 || name.rfind("msprof_", 0) == 0);
}

}  // namespace

int TimelineCollector::detect(const FileProbe& probe) const {
  char c = first_char(probe.head);
  bool array = c == '[';
  bool object = c == '{' && probe.head.find("\"traceEvents\"") != std::string::npos;
  if (!array && !object) return 0;
  if (probe.head.find("\"ph\"") == std::string::npos) return 0;
  if (named_like_timeline(base_name(probe.path))) return 100;
  // Content alone: an array-form trace that mentions Ascend processes or AscendCL calls.
  bool ascend = probe.head.find("\"Ascend Hardware\"") != std::string::npos ||
                probe.head.find("AscendCL@") != std::string::npos ||
                probe.head.find("\"Overlap Analysis\"") != std::string::npos;
  return array && ascend ? 60 : 0;
}

void TimelineCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  if (auto preferred = superseding_timeline(probe.path)) {
    ctx.warn("not ingested: " + preferred->string() +
             " holds the same timeline of this rank (trace_view is preferred over msprof_*.json)");
    return;
  }
  JsonInput in = load_json(probe);
  if (in.text.find_first_not_of(" \t\r\n") == std::string::npos)
    ctx.fail("byte offset 0", "empty file, expected a Chrome-trace JSON array or object");
  constexpr const char* kExpected =
      "expected a Chrome-trace JSON array or an object with traceEvents";
  // A damaged document (invalid UTF-8, an unclosed string, a truncated array) may not open at
  // all. Lenient mode then reads `salvaged`: the text up to the last complete event before the
  // damage, with the brackets still open there closed (a crashed process leaves such a file).
  const JsonInput* src = &in;
  JsonInput salvaged;
  {
    od::parser parser;
    od::document doc;
    od::array events;
    std::string where;
    size_t damage = in.text.size();
    if (auto err = parser.iterate(in.view()).get(doc)) {
      damage = stage1_error_offset(in.text, err);
      where = "byte offset " + std::to_string(damage) + ": " + simdjson::error_message(err);
    } else if ((err = open_events(doc, events))) {
      where = json_error_where(in, doc, err);
    }
    if (!where.empty()) {
      if (ctx.mode() == Mode::strict) ctx.fail(where, kExpected);
      std::string closed = close_before(in.text, damage, 2);
      ctx.skip("malformed JSON; the rest of the file is ignored", where);
      if (closed.empty()) return;  // not one complete event before the damage
      salvaged.text.reserve(closed.size() + simdjson::SIMDJSON_PADDING);
      salvaged.text.append(closed);
      src = &salvaged;
    }
  }

  Builder b(ctx, locate(probe.path));
  Event e;
  // Each pass parses anew: rewinding a document after a parse error is not safe in simdjson.
  od::parser parser;
  od::document doc;
  auto reopen = [&](od::array& events) {
    if (auto err = parser.iterate(src->view()).get(doc)) {
      ctx.fail("byte offset " + std::to_string(stage1_error_offset(src->text, err)) + ": " +
                   simdjson::error_message(err),
               kExpected);
    }
    if (auto err = open_events(doc, events)) ctx.fail(json_error_where(*src, doc, err), kExpected);
  };
  // Pass 1: process names, and the index of the first malformed event (if any).
  size_t usable = 0;
  std::string bad_where;
  {
    od::array events;
    reopen(events);
    for (auto item : events) {
      od::value v;
      simdjson::error_code err = item.get(v);
      if (!err) err = read_event(v, e);
      if (err) {
        bad_where = json_error_where(*src, doc, err) + " (event " + std::to_string(usable) + ")";
        break;
      }
      if (e.ph == "M")
        b.metadata(e);
      else if (e.ph == "s" || e.ph == "f")
        b.flow(e);
      ++usable;
    }
  }
  if (!bad_where.empty()) {
    // Strict: the whole file is rejected. Lenient: events before the damage are used.
    ctx.skip("malformed JSON; the rest of the file is ignored", bad_where);
  }
  if (usable == 0) return;

  // Pass 2: the events, now that every process and flow is known.
  b.seal_flows();
  od::array events;
  reopen(events);
  size_t index = 0;
  for (auto item : events) {
    if (index == usable) break;
    od::value v;
    if (item.get(v) || read_event(v, e)) break;
    if (e.ph != "M") b.event(e, index);
    ++index;
  }
  b.finish();
  auto& hints = ctx.hints();
  if (hints.device.empty()) hints.device = "ascend";
  if (hints.framework.empty())
    hints.framework = base_name(probe.path).rfind("msprof_", 0) == 0 ? "msprof" : "pytorch-npu";
}

}  // namespace perfsage::collectors::ascend

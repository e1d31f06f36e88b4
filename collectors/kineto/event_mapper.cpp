#include "collectors/kineto/event_mapper.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <functional>
#include <utility>

#include "collectors/kineto/number_text.h"

namespace perfsage::collectors::kineto {
namespace {

constexpr int64_t kMaxDurationNs = 604800LL * 1000 * 1000 * 1000;  // 7 days

constexpr std::array<std::pair<std::string_view, Category>, 34> kCategories{{
    {"cpu_op", Category::cpu_op},
    {"operator", Category::cpu_op},
    {"user_annotation", Category::user_annotation},
    {"python_function", Category::python},
    {"python", Category::python},
    {"cuda_runtime", Category::runtime},
    {"runtime", Category::runtime},
    {"xpu_runtime", Category::runtime},
    {"privateuse1_runtime", Category::runtime},
    {"mtia_runtime", Category::runtime},
    {"glow_runtime", Category::runtime},
    {"cuda_driver", Category::driver},
    {"driver", Category::driver},
    {"xpu_driver", Category::driver},
    {"privateuse1_driver", Category::driver},
    {"kernel", Category::kernel},
    {"gpu_memcpy", Category::memcpy},
    {"memcpy", Category::memcpy},
    {"gpu_memset", Category::memset},
    {"memset", Category::memset},
    {"cuda_sync", Category::sync},
    {"xpu_sync", Category::sync},
    {"gpu_user_annotation", Category::gpu_annotation},
    {"cuda_profiler_range", Category::profiler_range},
    {"ac2g", Category::flow},
    {"fwdbwd", Category::flow},
    {"async", Category::flow},
    {"async_gpu", Category::flow},
    {"async_cpu_to_gpu", Category::flow},
    {"forward_backward", Category::flow},
    {"cpu_instant_event", Category::other},
    {"trace", Category::other},
    {"overhead", Category::other},
    {"cuda_event", Category::other},
}};

// "stream 7 " -> 7: old traces name GPU tracks by text.
std::optional<int64_t> trailing_number(std::string_view s) {
  s = trim(s);
  size_t i = s.size();
  while (i > 0 && std::isdigit(static_cast<unsigned char>(s[i - 1]))) --i;
  if (i == s.size()) return std::nullopt;
  return parse_int(s.substr(i));
}

uint64_t flow_key(const TraceEvent& ev) {
  uint64_t h = std::hash<std::string_view>{}(ev.cat);
  uint64_t id = ev.id ? static_cast<uint64_t>(*ev.id) : std::hash<std::string_view>{}(ev.id_text);
  return h * 0x9E3779B97F4A7C15ULL ^ id;
}

void set_text(std::optional<std::string>& dst, const std::string& src) {
  if (src.empty()) {
    dst.reset();
  } else {
    dst = src;
  }
}

}  // namespace

Category classify_category(std::string_view cat) {
  size_t comma = cat.find(',');
  if (comma != std::string_view::npos) cat = cat.substr(0, comma);
  cat = trim(cat);
  char buf[32];
  if (cat.size() >= sizeof buf) return Category::unknown;
  for (size_t i = 0; i < cat.size(); ++i) {
    buf[i] = static_cast<char>(std::tolower(static_cast<unsigned char>(cat[i])));
  }
  std::string_view lower(buf, cat.size());
  for (const auto& [name, c] : kCategories) {
    if (name == lower) return c;
  }
  return Category::unknown;
}

std::string memcpy_kind_from_name(std::string_view name) {
  // "Memcpy HtoD (Pageable -> Device)": direction token, then the host-side memory kind.
  size_t p = name.find("Memcpy ");
  if (p == std::string_view::npos) return {};
  std::string_view rest = name.substr(p + 7);
  size_t sp = rest.find_first_of(" (");
  std::string out(trim(rest.substr(0, sp)));
  if (out.empty()) return {};
  size_t open = rest.find('('), close = rest.find(')');
  if (open == std::string_view::npos || close == std::string_view::npos || close < open) {
    return out;
  }
  std::string_view inner = rest.substr(open + 1, close - open - 1);
  size_t arrow = inner.find("->");
  std::string_view sides[2] = {trim(inner.substr(0, arrow)), arrow == std::string_view::npos
                                                                 ? std::string_view()
                                                                 : trim(inner.substr(arrow + 2))};
  for (auto side : sides) {
    if (!side.empty() && side != "Device") {
      out += ' ';
      out += side;
      break;
    }
  }
  return out;
}

Category EventMapper::category(std::string_view cat) {
  if (cat != last_cat_) {
    last_cat_.assign(cat);
    last_category_ = classify_category(cat);
  }
  return last_category_;
}

void EventMapper::add_flow(const TraceEvent& ev) {
  ++counters_.flow_events;
  if (!ev.id && ev.id_text.empty()) return;
  if (ev.ph == "s") flow_starts_.push_back(flow_key(ev));
  if (ev.ph == "f") flow_ends_.push_back(flow_key(ev));
}

const char* EventMapper::map(const TraceEvent& ev, Batch& out) {
  if (ev.ph.size() != 1) return ev.ph.empty() ? "event without \"ph\"" : "unknown phase";
  char ph = ev.ph[0];
  if (ph == 's' || ph == 'f' || ph == 't') {
    add_flow(ev);
    return nullptr;
  }
  if (ph == 'M') {
    ++counters_.metadata;
    return nullptr;
  }
  if (ph == 'i' || ph == 'I') {
    ++counters_.instants;
    return nullptr;
  }
  if (ph == 'C') {
    ++counters_.counters;
    return nullptr;
  }
  if (ph != 'X') {
    ++counters_.ignored;
    return nullptr;
  }
  Category c = category(ev.cat);
  // PyTorch builds without Kineto (Debian's python3-torch) export torch.autograd.profiler
  // traces: complete events without "cat" on the "CPU functions" process, each an op on the
  // CPU (nesting by time, ProfilerStep#N spans among them).
  if (ev.cat.empty() && ev.pid_text == "CPU functions") c = Category::cpu_op;
  if (c == Category::unknown) {
    ++counters_.ignored;
    ++counters_.unknown_events;
    std::string cat = ev.cat.empty() ? std::string("(no category)") : std::string(ev.cat);
    auto it = counters_.unknown_categories.find(cat);
    if (it != counters_.unknown_categories.end())
      ++it->second;
    else if (counters_.unknown_categories.size() < 16)
      counters_.unknown_categories.emplace(std::move(cat), 1);
    return nullptr;
  }
  if (c == Category::other || c == Category::flow) {
    ++counters_.ignored;
    return nullptr;
  }
  if (!ev.ts_ns) return "complete event without \"ts\"";
  int64_t dur = ev.dur_ns.value_or(0);
  if (dur < 0) return "negative duration";
  if (dur > kMaxDurationNs) {
    ++counters_.overlong;
    return nullptr;
  }
  int64_t start = base_ns_ + *ev.ts_ns;

  switch (c) {
    case Category::cpu_op:
    case Category::user_annotation:
    case Category::python:
    case Category::runtime:
    case Category::driver: {
      auto& h = out.host.next();
      h.rank = rank_;
      h.kind = c == Category::cpu_op            ? "cpu_op"
               : c == Category::user_annotation ? "user_annotation"
               : c == Category::python          ? "python"
               : c == Category::runtime         ? "runtime"
                                                : "driver";
      h.name.assign(ev.name);
      h.pid = ev.pid;
      h.tid = ev.tid;
      h.start_ns = start;
      h.dur_ns = dur;
      h.external_id = ev.external_id;
      h.correlation = ev.correlation;
      set_text(h.input_dims, ev.input_dims);
      set_text(h.input_types, ev.input_types);
      set_text(h.args, ev.extra);
      ++counters_.host;
      // ProfilerStep#N marks a training step (Operator in 2021 traces, user_annotation since).
      constexpr std::string_view kStep = "ProfilerStep#";
      const bool step_marker = (c == Category::cpu_op || c == Category::user_annotation) &&
                               ev.name.substr(0, kStep.size()) == kStep;
      if (!step_marker) note_span(start, dur);
      if (step_marker) {
        if (auto n = parse_int(ev.name.substr(kStep.size()))) {
          store::Step s;
          s.rank = rank_;
          s.step = *n;
          s.source = "ProfilerStep";
          s.start_ns = start;
          s.dur_ns = dur;
          out.steps.push_back(std::move(s));
          ++counters_.steps;
        }
      }
      return nullptr;
    }
    default:
      break;
  }

  auto& d = out.device.next();
  d.rank = rank_;
  d.kind = c == Category::kernel           ? "kernel"
           : c == Category::memcpy         ? "memcpy"
           : c == Category::memset         ? "memset"
           : c == Category::sync           ? "sync"
           : c == Category::profiler_range ? "range"
                                           : "gpu_annotation";
  d.name.assign(ev.name);
  note_span(start, dur);
  d.device = ev.device ? ev.device : ev.pid;
  d.stream = ev.stream ? ev.stream : ev.tid ? ev.tid : trailing_number(ev.tid_text);
  d.start_ns = start;
  d.dur_ns = dur;
  d.correlation = ev.correlation;
  d.external_id = ev.external_id;
  set_text(d.grid, ev.grid);
  set_text(d.block, ev.block);
  d.registers = ev.registers;
  d.shared_mem = ev.shared_mem;
  d.blocks_per_sm = ev.blocks_per_sm;
  d.warps_per_sm = ev.warps_per_sm;
  d.occupancy = ev.occupancy;
  d.bytes = ev.bytes;
  d.bandwidth_gbps = ev.bandwidth_gbps;
  d.memcpy_kind.reset();
  if (c == Category::memcpy) {
    std::string kind = memcpy_kind_from_name(ev.name);
    if (kind.empty()) kind = ev.copy_kind;
    set_text(d.memcpy_kind, kind);
  }
  set_text(d.args, ev.extra);
  ++counters_.device;
  if (c == Category::kernel && counters_.kernel_device < 0 && d.device) {
    counters_.kernel_device = *d.device;
  }
  return nullptr;
}

void EventMapper::rollback(const Mark& m, Batch& b) {
  b.host.truncate(m.n_host);
  b.device.truncate(m.n_device);
  b.steps.resize(m.n_steps);
  flow_starts_.resize(m.n_flow_starts);
  flow_ends_.resize(m.n_flow_ends);
  counters_ = m.counters;
}

namespace {

// Appends `from` to `to`, merging them when both are sorted.
void append_sorted(std::vector<uint64_t>& to, const std::vector<uint64_t>& from) {
  const bool merge =
      std::is_sorted(to.begin(), to.end()) && std::is_sorted(from.begin(), from.end());
  const auto mid = static_cast<std::ptrdiff_t>(to.size());
  to.insert(to.end(), from.begin(), from.end());
  if (merge) std::inplace_merge(to.begin(), to.begin() + mid, to.end());
}

}  // namespace

void EventMapper::absorb(const EventMapper& other, bool other_first) {
  MapCounters& c = counters_;
  const MapCounters& o = other.counters_;
  c.host += o.host;
  c.device += o.device;
  c.steps += o.steps;
  c.flow_events += o.flow_events;
  c.instants += o.instants;
  c.metadata += o.metadata;
  c.counters += o.counters;
  c.ignored += o.ignored;
  c.overlong += o.overlong;
  if (o.kernel_device >= 0 && (c.kernel_device < 0 || other_first))
    c.kernel_device = o.kernel_device;
  c.unknown_events += o.unknown_events;
  for (const auto& [cat, n] : o.unknown_categories) {
    auto it = c.unknown_categories.find(cat);
    if (it != c.unknown_categories.end())
      it->second += n;
    else if (c.unknown_categories.size() < 16)
      c.unknown_categories.emplace(cat, n);
  }
  c.events_min_ns = std::min(c.events_min_ns, o.events_min_ns);
  c.events_max_ns = std::max(c.events_max_ns, o.events_max_ns);
  append_sorted(flow_starts_, other.flow_starts_);
  append_sorted(flow_ends_, other.flow_ends_);
}

void EventMapper::sort_flows() {
  std::sort(flow_starts_.begin(), flow_starts_.end());
  std::sort(flow_ends_.begin(), flow_ends_.end());
}

EventMapper::FlowSummary EventMapper::flows() {
  if (!std::is_sorted(flow_starts_.begin(), flow_starts_.end()) ||
      !std::is_sorted(flow_ends_.begin(), flow_ends_.end()))
    sort_flows();
  FlowSummary s;
  s.starts = static_cast<int64_t>(flow_starts_.size());
  s.ends = static_cast<int64_t>(flow_ends_.size());
  auto start = flow_starts_.begin();
  for (uint64_t k : flow_ends_) {
    while (start != flow_starts_.end() && *start < k) ++start;
    if (start == flow_starts_.end() || *start != k) ++s.orphan_ends;
  }
  return s;
}

}  // namespace perfsage::collectors::kineto

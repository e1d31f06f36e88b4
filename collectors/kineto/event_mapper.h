// Maps Kineto events (current and legacy categories) to the store's raw records, and keeps the
// per-file tallies: flows, instants, ignored phases and dropped events.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "collectors/common/slots.h"
#include "collectors/kineto/trace_event.h"
#include "store/records.h"

namespace perfsage::collectors::kineto {

// Records of a run of events, reused across chunks: slots keep their string capacity so the
// steady state allocates nothing.
struct Batch {
  Slots<store::HostEvent> host;
  Slots<store::DeviceEvent> device;
  std::vector<store::Step> steps;

  size_t size() const { return host.size() + device.size() + steps.size(); }
  void clear() {
    host.clear();
    device.clear();
    steps.clear();
  }
};

enum class Category {
  cpu_op,
  user_annotation,
  python,
  runtime,
  driver,
  kernel,
  memcpy,
  memset,
  sync,
  gpu_annotation,
  profiler_range,  // CUPTI range profiler: counters per range, replayed times
  flow,
  unknown,  // a category no collector reads: counted by name and reported
  other
};
// Current and legacy Kineto category names, case-insensitive (§13.5 of the format notes).
Category classify_category(std::string_view cat);

// "Memcpy HtoD (Pageable -> Device)" -> "HtoD Pageable"; "Memcpy DtoD (Device -> Device)" ->
// "DtoD"; "" when the name carries no direction.
std::string memcpy_kind_from_name(std::string_view name);

struct MapCounters {
  int64_t host = 0, device = 0, steps = 0;
  int64_t flow_events = 0, instants = 0, metadata = 0, counters = 0, ignored = 0;
  int64_t overlong = 0;        // durations over 7 days: CUPTI overflow garbage, dropped
  int64_t kernel_device = -1;  // device of the first kernel seen
  // Span of every mapped event but the ProfilerStep annotations (ns, this mapper's base): steps
  // are checked against it once the file is read.
  int64_t events_min_ns = std::numeric_limits<int64_t>::max();
  int64_t events_max_ns = std::numeric_limits<int64_t>::min();
  // Complete events of categories no collector reads, by category (at most 16 names kept), so
  // that the ingest summary says what the file held that nothing uses.
  std::map<std::string, int64_t> unknown_categories;
  int64_t unknown_events = 0;
};

class EventMapper {
 public:
  EventMapper(int64_t rank, int64_t base_ns) : rank_(rank), base_ns_(base_ns) {}
  int64_t rank() const { return rank_; }
  int64_t base_ns() const { return base_ns_; }

  // Adds the records for `ev` to `out`; returns nullptr, or why the event cannot be used.
  const char* map(const TraceEvent& ev, Batch& out);

  struct Mark {
    size_t n_host, n_device, n_steps, n_flow_starts, n_flow_ends;
    MapCounters counters;
  };
  Mark mark(const Batch& b) const {
    return {b.host.size(),       b.device.size(),   b.steps.size(),
            flow_starts_.size(), flow_ends_.size(), counters_};
  }
  // Forgets everything mapped since `m` (a chunk that has to be read again event by event).
  void rollback(const Mark& m, Batch& b);

  const MapCounters& counters() const { return counters_; }
  // Adds the tallies and flows of a mapper that read other chunks of the same file. Its first
  // kernel's device is taken when `other_first` (its first kernel came earlier in the file).
  void absorb(const EventMapper& other, bool other_first);
  // Flow pairing by (category, id): starts, ends, and ends without a start.
  struct FlowSummary {
    int64_t starts = 0, ends = 0, orphan_ends = 0;
  };
  FlowSummary flows();
  // Sorts the flow keys read so far: parallel parsers sort theirs on their own threads, so that
  // absorbing merges sorted runs and flows() only walks them.
  void sort_flows();

 private:
  Category category(std::string_view cat);
  void add_flow(const TraceEvent& ev);
  void note_span(int64_t start, int64_t dur) {
    counters_.events_min_ns = std::min(counters_.events_min_ns, start);
    counters_.events_max_ns = std::max(counters_.events_max_ns, start + dur);
  }

  int64_t rank_, base_ns_;
  MapCounters counters_;
  std::vector<uint64_t> flow_starts_, flow_ends_;
  std::string last_cat_;
  Category last_category_ = Category::other;
};

}  // namespace perfsage::collectors::kineto

// Reading one Kineto trace into the store: scan the layout, read the top-level metadata (which
// may follow the events), then parse the events chunk by chunk with simdjson On-Demand while a
// second thread inserts the previous chunk's records. A chunk that fails to parse is read
// again event by event so that only the bad events are repaired or skipped.
#include <simdjson.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "collectors/common/ordered_sink.h"
#include "collectors/common/record_sink.h"
#include "collectors/kineto/chunk_blocks.h"
#include "collectors/kineto/chunk_parser.h"
#include "collectors/kineto/event_mapper.h"
#include "collectors/kineto/json_scan.h"
#include "collectors/kineto/kineto_collector.h"
#include "collectors/kineto/repair.h"
#include "collectors/kineto/trace_buffer.h"
#include "collectors/kineto/trace_event.h"
#include "collectors/kineto/trace_metadata.h"
#include "store/count_text.h"

namespace perfsage::collectors::kineto {
namespace od = simdjson::ondemand;

namespace {

std::string at(size_t byte) {
  return "byte " + std::to_string(byte);
}

// Which rank the events belong to and the base time added to their timestamps: the only
// metadata that event mapping needs.
struct Identity {
  int64_t rank = 0;
  const char* rank_source = "default";
  int64_t base_ns = 0;
  bool operator==(const Identity& o) const { return rank == o.rank && base_ns == o.base_ns; }
};

class TraceIngest {
 public:
  TraceIngest(TraceBuffer& buffer, CollectContext& ctx, const KinetoOptions& options)
      : buffer_(buffer), text_(buffer.view()), ctx_(ctx), options_(options) {}

  void run();

 private:
  Identity identify(const TraceMetadata& md) const;
  TraceLayout scan(const std::function<void(Span)>& on_chunk = {});
  TraceMetadata check_layout(const TraceLayout& layout);
  bool run_overlapped();
  RecordSink<Batch> make_sink();
  void parse_chunk(Span chunk, RecordSink<Batch>& sink);
  void finish(const TraceLayout& layout, const TraceMetadata& md, EventMapper& mapper);
  void write_metadata(const TraceMetadata& md, const Identity& id);
  // Parses the chunks the scanner publishes on `parsers` threads; false when a chunk needs
  // the event-by-event path (the caller then reads the whole file again sequentially).
  bool parse_in_parallel(const std::function<bool(size_t, Span&)>& next_chunk, int parsers,
                         EventMapper& mapper);
  void parse_chunk_slow(Span chunk, Batch& batch);
  void parse_one(Span span, Batch& batch);
  void finish_hints(const TraceMetadata& md, const MapCounters& c);
  // ProfilerSteps of this file that reach far past every other event it holds are cut to them.
  void clip_steps(const EventMapper& mapper);
  int64_t max_step_rowid();

  TraceBuffer& buffer_;
  std::string_view text_;
  CollectContext& ctx_;
  KinetoOptions options_;
  ChunkReader reader_;
  std::string fixed_;
  std::vector<Span> spans_;
  EventMapper* mapper_ = nullptr;
  int64_t event_index_ = 0;
  int64_t repaired_utf8_ = 0, repaired_quotes_ = 0, repaired_control_ = 0, repaired_bare_ = 0;
  int64_t steps_before_ = 0;   // the steps table's last rowid before this file
  int64_t span_shift_ns_ = 0;  // the base-time correction applied after the events were read
};

Identity TraceIngest::identify(const TraceMetadata& md) const {
  Identity id;
  id.base_ns = md.base_ns.value_or(0);
  if (md.rank) {
    id.rank = *md.rank;
    id.rank_source = "distributedInfo";
  } else if (auto r = rank_from_file_name(std::filesystem::path(ctx_.path()).filename().string())) {
    id.rank = *r;
    id.rank_source = "file name";
  }
  return id;
}

TraceLayout TraceIngest::scan(const std::function<void(Span)>& on_chunk) {
  auto scan_start = std::chrono::steady_clock::now();
  WaitForText wait;
  if (buffer_.growing()) wait = [this](size_t n) { return buffer_.wait(n); };
  TraceLayout layout = scan_trace(text_, options_.chunk_bytes, on_chunk, wait);
  spdlog::debug(
      "kineto {}: layout scan {:.1f} ms, {} chunks", ctx_.path(),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - scan_start)
          .count(),
      layout.chunks.size());
  return layout;
}

// Fails (strict) or warns about the document's structure; returns its metadata.
TraceMetadata TraceIngest::check_layout(const TraceLayout& layout) {
  if (layout.error && (ctx_.mode() == Mode::strict || layout.elements == 0)) {
    ctx_.fail(at(layout.error->first), "expected " + layout.error->second);
  }
  if (layout.error) {
    ctx_.warn("trace structure broken at " + at(layout.error->first) + " (expected " +
              layout.error->second + "); events before it were kept");
  }
  if (!layout.has_events) {
    ctx_.fail(at(0), "expected a \"traceEvents\" array (not a Chrome trace)");
  }
  if (!layout.closed) {
    if (layout.object_form && ctx_.mode() == Mode::strict) {
      ctx_.fail(at(text_.size()),
                "expected the closing ']' of \"traceEvents\" and '}' of the trace (the file is "
                "truncated)");
    }
    if (layout.object_form) {
      ctx_.warn("the file is truncated at " + at(text_.size()) +
                "; complete events were kept, top-level keys after the events are missing");
    }
  }
  TraceMetadata md = read_metadata(text_, layout.keys, reader_.parser);
  for (const auto& p : md.problems) {
    if (ctx_.mode() == Mode::strict) ctx_.fail(p.substr(p.find(" at ") + 4), "unreadable " + p);
    ctx_.warn("unreadable top-level value " + p);
  }
  return md;
}

void TraceIngest::parse_chunk(Span chunk, RecordSink<Batch>& sink) {
  Batch& batch = sink.batch();
  auto mark = mapper_->mark(batch);
  int64_t elements = 0;
  if (!parse_array_chunk(buffer_, reader_, *mapper_, chunk, true, batch, elements)) {
    mapper_->rollback(mark, batch);
    parse_chunk_slow(chunk, batch);
  } else {
    event_index_ += elements;
  }
  for (size_t i = 0, n = batch.size(); i < n; ++i) ctx_.record();
  sink.submit();
}

RecordSink<Batch> TraceIngest::make_sink() {
  return RecordSink<Batch>(ctx_.out(), options_.threaded, write_batch);
}

void TraceIngest::run() {
  if (options_.threaded && run_overlapped()) return;
  if (buffer_.growing()) {  // not read overlapped after all: wait for the whole text
    buffer_.finish();
  }
  text_ = buffer_.view();  // inflated again when the gzip trailer's size was wrong
  TraceLayout layout = scan();
  TraceMetadata md = check_layout(layout);
  Identity id = identify(md);
  write_metadata(md, id);
  steps_before_ = max_step_rowid();
  span_shift_ns_ = 0;
  EventMapper mapper(id.rank, id.base_ns);
  mapper_ = &mapper;
  {
    auto sink = make_sink();
    for (const Span& chunk : layout.chunks) parse_chunk(chunk, sink);
    sink.finish();
  }
  finish(layout, md, mapper);
}

// The layout scan, event parsing and inserting on three threads. Parsing needs the rank and
// base time, which Kineto may write after the events; they are guessed from the keys before
// the events and a look at the file's tail, and checked once the scan has found the real ones.
// A wrong guess (an event string that mimics a top-level key) rolls the events back and
// returns false so that run() reads the file again the plain way.
bool TraceIngest::run_overlapped() {
  // A .gz file still being inflated has no tail to look at yet: the base time is then guessed
  // from the head alone, and the events are shifted if the trace's end says otherwise.
  const bool growing = buffer_.growing();
  WaitForText wait;
  if (growing) wait = [this](size_t n) { return buffer_.wait(n); };
  auto keys = scan_head_keys(text_, wait);
  if (!growing) {
    for (auto& kv : guess_tail_keys(text_, {"distributedInfo", "baseTimeNanoseconds"}, 1 << 20)) {
      bool known = false;
      for (const auto& k : keys) known = known || k.first == kv.first;
      if (!known) keys.push_back(std::move(kv));
    }
  }
  Identity guess = identify(read_metadata(text_, keys, reader_.parser));

  CollectContext::Tally before = ctx_.tally();
  store::Database& db = ctx_.out().db();
  // Events of earlier files are buffered in open blocks; write them so that the savepoint
  // separates them from this file's.
  ctx_.out().flush_events();
  auto max_rowid = [&](const char* table) {
    auto st = db.prepare(std::string("SELECT coalesce(max(rowid), 0) FROM ") + table);
    return st.step() ? st.int64(0) : int64_t{0};
  };
  const int64_t blocks_before = max_rowid("event_blocks"), steps_before = max_rowid("steps");
  steps_before_ = steps_before;
  span_shift_ns_ = 0;
  db.exec("SAVEPOINT kineto_overlap");
  std::mutex mu;
  std::condition_variable cv;
  std::vector<Span> ready;
  bool scanned = false;
  TraceLayout layout;
  std::thread scanner([&] {
    TraceLayout l = scan([&](Span c) {
      std::lock_guard lock(mu);
      ready.push_back(c);
      cv.notify_all();  // every parser may be waiting
    });
    std::lock_guard lock(mu);
    layout = std::move(l);
    scanned = true;
    cv.notify_all();
  });
  struct Join {
    std::thread& t;
    ~Join() {
      if (t.joinable()) t.join();
    }
  } join{scanner};

  int parsers = options_.parsers > 0
                    ? options_.parsers
                    : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 2);
  // Chunk `next`, once the scanner has published it; false when there are no more chunks. A
  // single parser works in place and writes brackets just outside its chunk, so it also waits
  // for the scanner to publish the chunk after; parallel parsers copy their chunks.
  const size_t lookahead = parsers > 1 ? 0 : 1;
  auto next_chunk = [&](size_t next, Span& chunk) {
    std::unique_lock lock(mu);
    cv.wait(lock, [&] { return ready.size() > next + lookahead || scanned; });
    if (next >= ready.size()) return false;
    chunk = ready[next];
    return true;
  };
  EventMapper mapper(guess.rank, guess.base_ns);
  bool parsed = true;
  if (parsers > 1) {
    parsed = parse_in_parallel(next_chunk, parsers, mapper);
  } else {
    mapper_ = &mapper;
    auto sink = make_sink();
    Span chunk;
    for (size_t next = 0; next_chunk(next, chunk); ++next) parse_chunk(chunk, sink);
    sink.finish();
  }
  scanner.join();
  ctx_.out().flush_events();
  // Corrupt gzip data throws here (the savepoint goes with the failed ingest). A wrong size in
  // the trailer leaves the scan incomplete; the buffer then holds the whole text for a re-read.
  bool complete = buffer_.finish();
  if (!complete) text_ = buffer_.view();
  parsed = parsed && complete;

  TraceMetadata md = parsed ? check_layout(layout) : TraceMetadata{};
  Identity id = identify(md);
  const bool shift = parsed && growing && id.rank == guess.rank && id.base_ns != guess.base_ns;
  if (!parsed || (!(id == guess) && !shift)) {
    if (!complete) {
      spdlog::debug("kineto {}: the gzip trailer's size was wrong; reading again", ctx_.path());
    } else if (parsed) {
      spdlog::debug(
          "kineto {}: guessed rank/base time {}/{} but the trace says {}/{}; reading again",
          ctx_.path(), guess.rank, guess.base_ns, id.rank, id.base_ns);
    } else {
      spdlog::debug("kineto {}: a chunk needs repairs; reading again event by event", ctx_.path());
    }
    db.exec("ROLLBACK TO kineto_overlap");
    db.exec("RELEASE kineto_overlap");
    ctx_.restore(std::move(before));
    mapper_ = nullptr;
    event_index_ = repaired_utf8_ = repaired_quotes_ = repaired_control_ = repaired_bare_ = 0;
    return false;
  }
  db.exec("RELEASE kineto_overlap");
  if (shift) {
    spdlog::debug("kineto {}: base time {} found after the events; shifting them by {} ns",
                  ctx_.path(), id.base_ns, id.base_ns - guess.base_ns);
    ctx_.out().shift_times(blocks_before, steps_before, id.base_ns - guess.base_ns);
    span_shift_ns_ = id.base_ns - guess.base_ns;
  }
  write_metadata(md, id);
  finish(layout, md, mapper);
  return true;
}

bool TraceIngest::parse_in_parallel(const std::function<bool(size_t, Span&)>& next_chunk,
                                    int parsers, EventMapper& mapper) {
  struct Worker {
    Worker(int64_t rank, int64_t base_ns, double min_share)
        : mapper(rank, base_ns), encoder(min_share) {}
    ChunkReader reader;
    EventMapper mapper;
    Batch parsed;  // the chunk's records, reused: they stay in this thread's cache
    ChunkBlockEncoder encoder;
    int64_t elements = 0, records = 0;
    size_t first_kernel_chunk = SIZE_MAX;
    size_t chunks_end = SIZE_MAX;  // the chunk number it found past the last chunk
    bool needs_repair = false;
  };
  std::vector<std::unique_ptr<Worker>> workers;
  for (int i = 0; i < parsers; ++i)
    workers.push_back(
        std::make_unique<Worker>(mapper.rank(), mapper.base_ns(), options_.parser_block_min_share));
  std::atomic<size_t> claimed{0};
  OrderedSink<SealedChunk> sink(ctx_.out(), static_cast<size_t>(parsers) + 2, write_sealed_chunk);
  run_producers(sink, parsers, [&](size_t id) {
    Worker& w = *workers[id];
    for (;;) {
      size_t c = claimed.fetch_add(1);
      Span chunk;
      if (!next_chunk(c, chunk)) {
        w.chunks_end = c;
        w.mapper.sort_flows();
        return;
      }
      SealedChunk* sealed = sink.acquire(c);
      if (sealed == nullptr) return;  // another parser gave up
      bool had_kernel = w.mapper.counters().kernel_device >= 0;
      int64_t elements = 0;
      Batch& batch = w.parsed;
      batch.clear();
      if (!parse_array_chunk(buffer_, w.reader, w.mapper, chunk, false, batch, elements)) {
        w.needs_repair = true;
        sink.abort();
        return;
      }
      w.encoder.encode(batch, *sealed);
      w.elements += elements;
      w.records += static_cast<int64_t>(batch.size());
      if (!had_kernel && w.mapper.counters().kernel_device >= 0) w.first_kernel_chunk = c;
      sink.submit(c);
    }
  });
  bool repair = false;
  size_t chunks = SIZE_MAX;  // chunks are claimed in order: the lowest number past the end
  for (auto& w : workers) {
    repair = repair || w->needs_repair;
    chunks = std::min(chunks, w->chunks_end);
  }
  if (repair) return false;
  sink.finish(chunks);
  size_t first = SIZE_MAX;
  for (auto& w : workers) {
    mapper.absorb(w->mapper, w->first_kernel_chunk < first);
    first = std::min(first, w->first_kernel_chunk);
    event_index_ += w->elements;
    ctx_.record(w->records);
  }
  return true;
}

void TraceIngest::finish(const TraceLayout& layout, const TraceMetadata& md, EventMapper& mapper) {
  if (layout.truncated_tail) {
    ctx_.skip("event cut off by the end of the file", at(layout.truncated_tail->begin));
  }
  mapper_ = nullptr;
  auto flows = mapper.flows();
  if (flows.orphan_ends > 0) {
    ctx_.warn(std::to_string(flows.starts) + " flow starts and " + std::to_string(flows.ends) +
              " flow ends; " + std::to_string(flows.orphan_ends) +
              " ends have no start (tolerated; correlation ids link the events)");
  }
  const auto& c = mapper.counters();
  if (c.unknown_events > 0) {
    // Said plainly: a report that finds nothing in events it never read would mislead.
    std::string cats;
    for (const auto& [cat, n] : c.unknown_categories)
      cats += (cats.empty() ? "" : ", ") + cat + " (" + std::to_string(n) + ")";
    ctx_.warn(store::count_text(c.unknown_events, "complete event") +
              " of categories perfsage does not read, left out of every "
              "analysis: " +
              cats);
  }
  if (c.overlong > 0) {
    ctx_.warn("dropped " + store::count_text(c.overlong, "event") +
              " longer than 7 days (CUPTI timestamp overflow)");
  }
  auto repaired = [&](int64_t n, const char* what) {
    if (n > 0) ctx_.warn("repaired " + store::count_text(n, "event") + ": " + what);
  };
  repaired(repaired_utf8_, "invalid UTF-8 replaced by U+FFFD");
  repaired(repaired_quotes_, "unescaped quotes inside strings escaped");
  repaired(repaired_control_, "raw control characters inside strings escaped");
  repaired(repaired_bare_, "bare values such as N/A replaced by null");
  finish_hints(md, c);
  clip_steps(mapper);
}

int64_t TraceIngest::max_step_rowid() {
  auto st = ctx_.out().db().prepare("SELECT coalesce(max(rowid), 0) FROM steps");
  return st.step() ? st.int64(0) : int64_t{0};
}

// A ProfilerStep annotation is trusted to span the step's work. One that reaches past the
// file's other events by more than half its own length and more than a millisecond (a step
// marker from another process that outlives the profile: a 13.3 s step around 1.5 ms of
// recorded work) would make every per-step number meaningless: it is cut to the span the file
// recorded, or dropped when it holds none of it, and the ingest summary says so.
void TraceIngest::clip_steps(const EventMapper& mapper) {
  const auto& c = mapper.counters();
  if (c.events_min_ns > c.events_max_ns) return;  // no other event: nothing to judge by
  const int64_t lo = c.events_min_ns + span_shift_ns_, hi = c.events_max_ns + span_shift_ns_;
  store::Database& db = ctx_.out().db();
  auto st = db.prepare(
      "SELECT rowid, step, start_ns, dur_ns FROM steps WHERE run_id = ?1 AND rowid > ?2 AND "
      "source = 'ProfilerStep' AND start_ns IS NOT NULL AND dur_ns > 0");
  st.bind(1, ctx_.out().run_id()).bind(2, steps_before_);
  struct Cut {
    int64_t rowid, step, start, dur;
  };
  std::vector<Cut> cuts;
  while (st.step()) {
    const int64_t start = st.int64(2), dur = st.int64(3), end = start + dur;
    const int64_t outside = std::max<int64_t>(0, lo - start) + std::max<int64_t>(0, end - hi);
    // More than half the step and more than a millisecond: the few microseconds a step marker
    // opens before its first op are no reason to touch it.
    if (2 * outside > dur && outside > 1'000'000)
      cuts.push_back({st.int64(0), st.int64(1), start, dur});
  }
  auto update = db.prepare("UPDATE steps SET start_ns = ?1, dur_ns = ?2 WHERE rowid = ?3");
  auto drop = db.prepare("DELETE FROM steps WHERE rowid = ?1");
  for (const auto& cut : cuts) {
    const int64_t s = std::max(cut.start, lo), e = std::min(cut.start + cut.dur, hi);
    std::string what = "ProfilerStep#" + std::to_string(cut.step) + " lasts " +
                       std::to_string(cut.dur / 1000) + " us but the file's other events span " +
                       std::to_string((hi - lo) / 1000) + " us";
    if (e > s) {
      update.bind(1, s).bind(2, e - s).bind(3, cut.rowid).run();
      update.reset();
      ctx_.warn(what + "; cut to them (" + std::to_string((e - s) / 1000) + " us)");
    } else {
      drop.bind(1, cut.rowid).run();
      drop.reset();
      ctx_.warn(what + " and it holds none of them; left out");
    }
  }
}

void TraceIngest::write_metadata(const TraceMetadata& md, const Identity& id) {
  if (std::string_view(id.rank_source) == "default")
    ctx_.warn("no rank in distributedInfo or the file name; assuming rank 0");
  const int64_t rank = id.rank;
  const char* rank_source = id.rank_source;
  store::RankInfo ri;
  ri.rank = rank;
  ri.world_size = md.world_size;
  ri.backend = md.backend;
  ri.source = rank_source;
  ctx_.out().add(ri);
  ctx_.record();
  for (const auto& g : md.gpus) {
    store::Hardware hw;
    hw.rank = rank;
    hw.device_id = g.id;
    if (g.name.rfind("NVIDIA", 0) == 0 || g.name.find("Tesla") != std::string::npos) {
      hw.vendor = "NVIDIA";
    } else if (g.name.find("AMD") != std::string::npos ||
               g.name.find("Instinct") != std::string::npos) {
      hw.vendor = "AMD";
    }
    if (!g.name.empty()) hw.name = hw.chip = g.name;
    hw.sm_count = g.sm_count;
    hw.memory_bytes = g.memory_bytes;
    if (!g.compute_capability.empty()) hw.compute_capability = g.compute_capability;
    hw.props = g.props;
    ctx_.out().add(hw);
    ctx_.record();
  }
}

void TraceIngest::parse_chunk_slow(Span chunk, Batch& batch) {
  spans_.clear();
  split_elements(text_, chunk, spans_);
  for (const Span& s : spans_) {
    parse_one(s, batch);
    ++event_index_;
  }
}

void TraceIngest::parse_one(Span span, Batch& batch) {
  std::string_view raw = std::string_view(text_).substr(span.begin, span.size());
  std::string where = at(span.begin) + " (event " + std::to_string(event_index_) + ")";
  auto attempt = [&](std::string_view json, EventError& err) {
    std::string& buf = reader_.buf;
    buf.assign(json);
    buf.reserve(buf.size() + simdjson::SIMDJSON_PADDING);
    od::document doc;
    od::object obj;
    err = {};
    if ((err.code = reader_.parser.iterate(buf.data(), buf.size(), buf.capacity()).get(doc))) {
      return false;
    }
    if ((err.code = doc.get_object().get(obj))) {
      err.field = "the event object";
      return false;
    }
    err = read_event(obj, reader_.ev);
    return !err;
  };
  EventError err;
  if (!attempt(raw, err)) {
    if (ctx_.mode() == Mode::strict) ctx_.fail(where, err.message());
    Repairs r = repair_event_json(raw, fixed_);
    EventError err2;
    if (!r.any() || !attempt(fixed_, err2)) {
      ctx_.skip(raw.empty() || raw[0] != '{' ? "array element is not an event object"
                                             : "malformed event JSON",
                where);
      return;
    }
    repaired_utf8_ += r.utf8;
    repaired_quotes_ += r.quotes;
    repaired_control_ += r.control;
    repaired_bare_ += r.bare_values;
  }
  if (const char* reason = mapper_->map(reader_.ev, batch)) ctx_.skip(reason, where);
}

void TraceIngest::finish_hints(const TraceMetadata& md, const MapCounters& c) {
  RunHints& h = ctx_.hints();
  if (h.framework.empty()) h.framework = "pytorch";
  bool gpu = !md.gpus.empty() || c.device > 0;
  bool amd = false;
  for (const auto& g : md.gpus) {
    if (g.name.find("AMD") != std::string::npos || g.name.find("Instinct") != std::string::npos)
      amd = true;
  }
  if (gpu) {
    h.device = amd ? "rocm" : "cuda";
  } else if (h.device.empty()) {
    h.device = "cpu";
  }
  if (h.chip.empty() && !md.gpus.empty()) {
    h.chip = md.gpus.front().name;
    for (const auto& g : md.gpus) {
      if (g.id && *g.id == c.kernel_device) h.chip = g.name;
    }
  }
}

}  // namespace

void KinetoCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  auto start = std::chrono::steady_clock::now();
  // Inflating on a thread of its own needs the overlapped reader, which needs `threaded`.
  TraceBuffer buffer(probe.path, options_.threaded ? options_.overlap_inflate_bytes : 0);
  if (*buffer.inflater()) {
    spdlog::debug(
        "kineto {}: inflated {} bytes with {} in {:.1f} ms", probe.path.string(), buffer.size(),
        buffer.inflater(),
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
            .count());
  }
  TraceIngest(buffer, ctx, options_).run();
}

}  // namespace perfsage::collectors::kineto

#include "collectors/ascend/op_table.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#include "collectors/ascend/layout.h"
#include "collectors/ascend/op_columns.h"
#include "collectors/ascend/op_row_parser.h"
#include "collectors/common/csv_chunks.h"
#include "collectors/common/csv_reader.h"
#include "collectors/common/ordered_sink.h"
#include "store/event_block_sink.h"
#include "store/file_bytes.h"

namespace perfsage::collectors::ascend {

namespace {

// What one chunk of rows became: finished blocks, the rows it stored and skipped.
struct ChunkBlocks {
  std::vector<store::SealedBlock> blocks;
  int64_t records = 0;
  size_t lines = 0;  // lines the chunk spans; its skips are numbered from 1 within it
  SkipLog skips;
  void clear() {
    blocks.clear();
    records = lines = 0;
    skips.entries.clear();
  }
};

void parse_chunk(std::string_view data, const CsvChunk& chunk, OpRowParser& parser,
                 store::EventBlockBuilder& builder, bool strict, ChunkBlocks& out) {
  CsvReader reader(data.substr(chunk.begin, chunk.end - chunk.begin), ',', CsvReader::Start::chunk);
  while (reader.next()) {
    if (!reader.error().empty()) {
      out.skips.add(reader.error(), reader.line());
    } else if (parser.parse(reader, out.skips)) {
      store::append_op_task(builder, parser.task());
      ++out.records;
      if (builder.rows() >= store::EventBlockSink::kBlockRows ||
          builder.bytes() >= store::EventBlockSink::kBlockBytes)
        out.blocks.push_back(builder.seal());
      continue;
    }
    if (strict) break;  // the first skip fails the file when it is replayed
  }
  if (builder.rows() > 0) out.blocks.push_back(builder.seal());
  out.lines = reader.next_line() - 1;
}

// First line of the probe's head as a CSV header.
CsvHeader head_header(const std::string& head) {
  CsvReader r(head);
  if (!r.next()) return {};
  return CsvHeader(r.fields());
}

bool named_like_op_table(const std::string& name) {
  auto csv = name.size() > 4 && name.compare(name.size() - 4, 4, ".csv") == 0;
  return csv && (name.rfind("op_summary", 0) == 0 || name.rfind("kernel_details", 0) == 0);
}

}  // namespace

int OpTableCollector::detect(const FileProbe& probe) const {
  bool named = named_like_op_table(base_name(probe.path));
  // An empty file with an op-table name is claimed so the error says what is wrong with it.
  if (named && trim_blanks(probe.head).empty()) return 100;
  CsvHeader header = head_header(probe.head);
  if (looks_like_op_table(header)) {
    if (named) return 100;
    // A differently named table with the distinctive op-table columns (test fixtures, renamed
    // exports) is still recognised, with less certainty.
    return header.find_any({"Accelerator Core", "Task Type"}) ? 40 : 0;
  }
  // Named like an op table with several of its columns but not all required ones: claimed, so
  // that collect() names the missing columns.
  return named && known_op_columns(header) >= 2 ? 100 : 0;
}

void OpTableCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  if (auto preferred = superseding_op_table(probe.path)) {
    ctx.warn("not ingested: " + preferred->string() +
             " holds the same tasks of this rank (kernel_details is preferred over op_summary)");
    return;
  }
  using Clock = std::chrono::steady_clock;
  auto ms_since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  auto t0 = Clock::now();
  store::InputBytes input(probe.path);
  double map_ms = ms_since(t0);
  std::string_view data = input.view();
  CsvReader head(data);
  if (!head.next()) ctx.fail("line 1", "empty file, expected an op table header");
  CsvHeader header(head.fields());
  OpTablePlan plan = plan_op_table(header);
  if (!plan.missing.empty()) {
    std::string list;
    for (const auto& m : plan.missing) list += (list.empty() ? "" : ", ") + m;
    ctx.fail("line 1", "missing required column(s): " + list);
  }
  auto& hints = ctx.hints();
  if (hints.device.empty()) hints.device = "ascend";
  if (hints.framework.empty()) hints.framework = plan.kernel_details ? "pytorch-npu" : "msprof";

  // The rows after the header, in chunks that parser threads read independently, each split
  // off when a thread claims it; each chunk becomes one or more finished column blocks, stored
  // in chunk order by the sink's thread, which also numbers the chunk's lines in the file.
  CsvChunker chunker(data, head.position(), options_.chunk_bytes);
  std::mutex claim_mu;
  size_t claimed = 0;
  bool split_all = false;
  // Chunk number and bytes of the next chunk; false when there are no more.
  auto claim = [&](size_t& c, CsvChunk& chunk) {
    std::lock_guard lock(claim_mu);
    if (split_all || !chunker.next(chunk)) {
      split_all = true;
      return false;
    }
    c = claimed++;
    return true;
  };
  int parsers = options_.parsers > 0
                    ? options_.parsers
                    : std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 2);
  if (data.size() - head.position() <= options_.chunk_bytes) parsers = 1;
  Location loc = locate(probe.path);
  const bool strict = ctx.mode() == Mode::strict;

  size_t line = head.next_line();  // the first line of the next chunk to store
  OrderedSink<ChunkBlocks> sink(ctx.out(), static_cast<size_t>(parsers) + 2,
                                [&ctx, &line](store::RunWriter& out, ChunkBlocks& c) {
                                  // Only this thread touches ctx until the sink finishes.
                                  for (auto& [reason, at] : c.skips.entries)
                                    ctx.skip(reason, "line " + std::to_string(line + at - 1));
                                  for (const auto& b : c.blocks)
                                    out.add_block(store::op_task_schema(), b);
                                  ctx.record(c.records);
                                  line += c.lines;
                                });
  auto t2 = Clock::now();
  run_producers(sink, parsers, [&](size_t) {
    OpRowParser parser(plan, header, loc);
    store::EventBlockBuilder builder(store::op_task_schema());
    size_t c;
    CsvChunk chunk;
    while (claim(c, chunk)) {
      ChunkBlocks* out = sink.acquire(c);
      if (out == nullptr) return;  // another thread failed
      parse_chunk(data, chunk, parser, builder, strict, *out);
      sink.submit(c);
    }
  });
  double parse_ms = ms_since(t2);
  sink.finish(claimed);
  spdlog::debug(
      "op table {}: mapped in {:.1f} ms, {} chunks parsed on {} thread(s) in {:.1f} ms, stored "
      "{:.1f} ms later",
      ctx.path(), map_ms, claimed, parsers, parse_ms, ms_since(t2) - parse_ms);
}

}  // namespace perfsage::collectors::ascend

// Collector for PyTorch profiler (Kineto) Chrome-trace JSON, plain or gzip, object or array
// form, current and legacy category names.
#pragma once

#include <cstddef>
#include <string>

#include "collectors/common/collector.h"

namespace perfsage::collectors::kineto {

struct KinetoOptions {
  // Insert records on a second thread while the next chunk is parsed.
  bool threaded = true;
  // Threads parsing chunks when `threaded`; their records are stored in file order. 0: one
  // per core, at most two (a third parser found no core free of the scanner and inserter).
  int parsers = 0;
  // Bytes of whole events parsed per simdjson document.
  size_t chunk_bytes = size_t{1} << 20;
  // With parser threads, a kind holding at least this share of a chunk's events (and at least
  // ChunkBlockEncoder::kMinBlockRows of them) is encoded into a column block by the parser;
  // rarer kinds are gathered into blocks by the writer. A share, not a count, because how many
  // events a chunk holds depends on their size (shapes and stacks make them several times larger).
  double parser_block_min_share = 0.125;
  // A single-member .gz file inflating to at least this many bytes is inflated on a thread of
  // its own while the scan and the parsers read what is there (with `threaded`); 0: never.
  // Smaller files inflate faster in one libdeflate call than a thread would save.
  size_t overlap_inflate_bytes = size_t{64} << 20;
};

// Detection score: 80 with Kineto markers, at most 50 for other Chrome traces, 0 for Ascend
// timelines (their own collector reads those) and for anything else.
int detect_kineto(const FileProbe& probe);

class KinetoCollector : public Collector {
 public:
  explicit KinetoCollector(KinetoOptions options = {}) : options_(options) {}
  std::string name() const override { return "kineto"; }
  int detect(const FileProbe& probe) const override { return detect_kineto(probe); }
  void collect(const FileProbe& probe, CollectContext& ctx) const override;

 private:
  KinetoOptions options_;
};

}  // namespace perfsage::collectors::kineto

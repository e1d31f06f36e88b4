// Collectives aligned across ranks (docs/gpu-definitions.md, "Wait and transfer"): on one rank a
// collective kernel runs from the moment that rank enters it until all ranks have moved the
// data, so its duration is the wait for the last rank plus the transfer. With every rank's trace
// the two can be told apart. The n-th collective of a type on one rank is the n-th on every rank
// (PyTorch issues collectives in the same order on all ranks of a process group). Per collective:
// the last rank to start sets the start of the transfer; each rank's wait is that start minus its
// own, its transfer the rest of its kernel.
// Ranks' traces come from different hosts, whose clocks disagree. A collective ends at almost the
// same moment on every rank, so each rank's clock offset is taken as the median difference of its
// collectives' ends to the first rank's, and removed before the starts are compared.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/gpu_analysis.h"
#include "analyzers/gpu/tables.h"
#include "store/bind.h"

namespace perfsage::analyzers::gpu {
namespace {

int64_t median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

}  // namespace

void write_collective_alignment(store::Database& db, int64_t run, CollectiveSpans& by_type) {
  db.prepare("DELETE FROM gpu_collective_ranks WHERE run_id=?1").bind(1, run).run();
  store::RowInserter insert(db, tables::collective_ranks());
  for (auto& [type, ranks] : by_type) {
    if (ranks.size() < 2) continue;  // one rank: nothing to align against
    size_t aligned = std::numeric_limits<size_t>::max();
    for (auto& [rank, spans] : ranks) {
      std::sort(spans.begin(), spans.end());
      aligned = std::min(aligned, spans.size());
    }
    // Clock offsets from the ends of the aligned collectives, against the first rank.
    const auto& ref = ranks.begin()->second;
    std::map<int64_t, int64_t> offset;
    for (const auto& [rank, spans] : ranks) {
      std::vector<int64_t> d;
      for (size_t i = 0; i < aligned; ++i) d.push_back(spans[i].second - ref[i].second);
      offset[rank] = median(std::move(d));
    }
    struct Totals {
      int64_t wait = 0, transfer = 0, last = 0;
    };
    std::map<int64_t, Totals> totals;
    for (size_t i = 0; i < aligned; ++i) {
      int64_t latest = std::numeric_limits<int64_t>::min(), last_rank = 0;
      for (const auto& [rank, spans] : ranks) {
        int64_t start = spans[i].first - offset[rank];
        if (start > latest) {
          latest = start;
          last_rank = rank;
        }
      }
      ++totals[last_rank].last;
      for (const auto& [rank, spans] : ranks) {
        const int64_t start = spans[i].first - offset[rank], end = spans[i].second - offset[rank];
        Totals& t = totals[rank];
        const int64_t wait = std::min(latest, end) - start;
        t.wait += wait;
        t.transfer += end - start - wait;
      }
    }
    for (const auto& [rank, spans] : ranks) {
      const Totals& t = totals[rank];
      insert.insert(run, rank, type, static_cast<int64_t>(aligned),
                    static_cast<int64_t>(spans.size() - aligned), t.wait, t.transfer, t.last,
                    offset[rank]);
    }
  }
}

}  // namespace perfsage::analyzers::gpu

// The GPU analyzers' shared reads (analyzers/gpu/device_spans.h) on hand-made activities: the
// launch calls of correlation ids, and HTA's queue length per stream (queue_depth.cpp): the
// order of events at one time, a call recorded after its activity ended, unlinked and
// graph-launched activities, streams without ids or without any linked activity.
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <string>
#include <tuple>
#include <vector>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/tables.h"
#include "store/run_writer.h"
#include "store/schema.h"

using namespace perfsage;
using namespace perfsage::analyzers::gpu;

namespace {

// gpu_queues in row order, '-' for NULL.
std::string queue_rows(store::Database& db) {
  auto st = db.prepare(
      "SELECT device, stream, activities, unlinked, graph_launched, busy_us, window_us, "
      "max_depth, median_depth, round(mean_depth, 9), round(zero_share, 9) FROM gpu_queues "
      "ORDER BY rowid");
  std::string rows;
  while (st.step()) {
    for (int c = 0; c < st.column_count(); ++c) rows += (st.is_null(c) ? "-" : st.text(c)) + "|";
    rows += "\n";
  }
  return rows;
}

}  // namespace

TEST_CASE("queue depth per stream: completions before enqueues at one time, skewed calls",
          "[gpu]") {
  store::Database db(":memory:");
  store::ensure_derived_tables(db, {tables::queues()});
  auto act = [](std::optional<int64_t> stream, int64_t start, int64_t end,
                std::optional<int64_t> corr) {
    DeviceSpan d{start,  end,  stream ? std::optional<int64_t>(0) : std::nullopt,
                 stream, corr, Class::compute};
    return d;
  };
  // Stream 7 out of start order; stream 3 with only an unlinked activity; one without ids.
  const std::vector<DeviceSpan> dev = {
      act(7, 20, 30, 2),          act(7, 10, 20, 1),
      act(7, 92, 95, 3),  // its call at 100, after it ended: enqueued as it ends
      act(3, 0, 4, std::nullopt), act(7, 60, 70, std::nullopt),
      act(7, 70, 75, 4),  // no call of its correlation
      act(7, 70, 80, 5),          act(std::nullopt, 100, 110, 7),
      act(7, 85, 90, 6)};  // enqueued at 20, as the first activity ends
  LaunchCalls launches(dev);
  for (auto [corr, start, graph] : {std::tuple{1, 0, false},
                                    {2, 5, false},
                                    {3, 100, false},
                                    {5, 65, true},
                                    {6, 20, false},
                                    {7, 100, false}})
    *launches.call(corr) = {start, graph};  // 4: no call
  {
    store::RowInserter insert(db, tables::queues());
    write_queue_depth(insert, 1, 0, dev, launches);
  }
  const std::string rows = queue_rows(db);
  // Stream 7's depth: 1 [0,5), 2 [5,20), 2 [20,30) (the end at 20 counts before the enqueue:
  // never 3), 1 [30,65), 2 [65,80), 1 [80,90), 0 [90,95), then -1 and back to 0 at 95.
  CHECK(rows ==
        "-|-|1|0|0|0.01|0.01|1|1.0|1.0|0.0|\n"
        "0|3|1|1|0|0.004|0.0|0|0.0|0.0|-|\n"
        "0|7|7|2|1|0.053|0.095|2|1.0|1.368421053|0.052631579|\n");
}

TEST_CASE("queue depth does not depend on the order of the activities", "[gpu]") {
  // Three runs of ascending times (kernels, then copies, then kernels again), merged; the same
  // activities in start order need no sorting.
  std::vector<DeviceSpan> runs;
  for (int64_t part : {0, 1, 2})
    for (int64_t i = 0; i < 3000; ++i) {
      const int64_t start = i * 30 + part * 10;
      runs.push_back({start, start + 25 + i % 7, 0, 7, i * 3 + part, Class::compute});
    }
  std::vector<DeviceSpan> in_order = runs;
  std::sort(in_order.begin(), in_order.end(),
            [](const DeviceSpan& a, const DeviceSpan& b) { return a.start < b.start; });
  std::vector<std::string> rows;
  for (const auto* dev : {&runs, &in_order}) {
    store::Database db(":memory:");
    store::ensure_derived_tables(db, {tables::queues()});
    LaunchCalls launches(*dev);
    for (const DeviceSpan& d : *dev)  // enqueued up to 200 ns early, not in time order
      *launches.call(*d.correlation) = {d.start - (*d.correlation * 37) % 200, false};
    {
      store::RowInserter insert(db, tables::queues());
      write_queue_depth(insert, 1, 0, *dev, launches);
    }
    rows.push_back(queue_rows(db));
  }
  CHECK(rows[0] == rows[1]);
  CHECK(rows[0].rfind("0|7|9000|0|0|", 0) == 0);
}

TEST_CASE("launch calls: each correlation's earliest call of the rank, ids dense or sparse",
          "[gpu]") {
  for (int64_t far : {int64_t{3}, int64_t{1000}, int64_t{1} << 40}) {  // one word, several, sparse
    CAPTURE(far);
    store::Database db(":memory:");
    store::migrate(db);
    int64_t run;
    {
      store::RunWriter w(db, {"j", {}, "fp", "now"});
      run = w.run_id();
      auto call = [&](int64_t rank, const char* kind, const char* name, int64_t start,
                      std::optional<int64_t> corr) {
        store::HostEvent e;
        e.rank = rank;
        e.kind = kind;
        e.name = name;
        e.start_ns = start;
        e.dur_ns = 1;
        e.correlation = corr;
        w.add(e);
      };
      call(0, "runtime", "cudaLaunchKernel", 50, 1);
      call(0, "runtime", "cudaGraphLaunch", 40, 1);  // earlier: the one that enqueued
      call(0, "driver", "cuLaunchKernel", 30, 2);
      call(0, "runtime", "cudaGraphLaunch", 35, 2);        // later: not
      call(1, "runtime", "cudaLaunchKernel", 10, 2);       // another rank's
      call(0, "runtime", "cudaLaunchKernel", 5, far + 1);  // no activity of its id
      call(0, "runtime", "cudaMemcpyAsync", 7, far);
      call(0, "runtime", "cudaStreamSynchronize", 1, std::nullopt);
      w.commit();
    }
    auto act = [](std::optional<int64_t> corr) {
      return DeviceSpan{100, 110, 0, 7, corr, Class::compute};
    };
    const auto calls =
        launch_calls(db, run, 0, {act(1), act(2), act(far), act(std::nullopt), act(9), act(2)});
    auto at = [&](int64_t corr) {
      auto it = calls.find(corr);
      REQUIRE(it != calls.end());
      CHECK(it->first == corr);
      return it->second;
    };
    REQUIRE(calls.size() == 4);
    CHECK(at(1).start == 40);
    CHECK(at(1).graph);
    CHECK(at(2).start == 30);
    CHECK_FALSE(at(2).graph);
    CHECK(at(far).start == 7);
    CHECK(at(9).start == std::numeric_limits<int64_t>::max());
    CHECK(calls.find(far + 1) == calls.end());
    CHECK(calls.find(4) == calls.end());
    CHECK(calls.find(-1) == calls.end());
  }
}

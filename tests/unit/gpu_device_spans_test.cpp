// The GPU analyzers' shared reads (analyzers/gpu/device_spans.h) on hand-made activities: the
// launch calls of correlation ids.
#include <catch2/catch.hpp>
#include <limits>
#include <string>

#include "analyzers/gpu/device_spans.h"
#include "analyzers/gpu/tables.h"
#include "store/run_writer.h"
#include "store/schema.h"

using namespace perfsage;
using namespace perfsage::analyzers::gpu;

TEST_CASE("launch calls: each correlation's earliest call of the rank, ids dense or sparse",
          "[gpu]") {
  for (int64_t far : {int64_t{3}, int64_t{1} << 40}) {
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
    REQUIRE(calls.size() == 4);
    CHECK(calls.at(1).start == 40);
    CHECK(calls.at(1).graph);
    CHECK(calls.at(2).start == 30);
    CHECK_FALSE(calls.at(2).graph);
    CHECK(calls.at(far).start == 7);
    CHECK(calls.at(9).start == std::numeric_limits<int64_t>::max());
  }
}

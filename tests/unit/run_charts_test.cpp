// The data behind a run's charts (app/run_charts): a step chart per source, never two sources
// in one chart; a long run averaged into at most 200 bars with each group's range; and the
// Roofline saying why ops have no point (issue 26 item 15).
#include "app/run_charts.h"

#include <catch2/catch.hpp>

#include "store/database.h"
#include "store/run_writer.h"
#include "test_support.h"

using namespace perfsage;
namespace v1 = perfsage::v1;

namespace {

int64_t new_run(store::Database& db) {
  store::RunWriter w(db, {"job", {"/in/job"}, "fp-job", "2024-01-01T00:00:00Z"});
  int64_t id = w.run_id();
  w.commit();
  return id;
}

// A step of `dur_ms`; with `computing_ms` >= 0 a breakdown (computing, 1 ms communication, the
// rest free).
void add_step(store::Database& db, int64_t run, const std::string& source, int64_t rank,
              int64_t step, double dur_ms, double computing_ms = -1) {
  auto st = db.prepare(
      "INSERT INTO steps(run_id, rank, step, source, dur_ns, computing_us, "
      "comm_not_overlapped_us, free_us) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)");
  st.bind(1, run).bind(2, rank).bind(3, step).bind(4, source);
  st.bind(5, static_cast<int64_t>(dur_ms * 1e6));
  if (computing_ms >= 0) {
    st.bind(6, computing_ms * 1e3).bind(7, 1e3).bind(8, (dur_ms - computing_ms - 1) * 1e3);
  }
  st.run();
}

}  // namespace

TEST_CASE("step charts: one chart per source, named, the preferred source first") {
  store::Database db(":memory:");
  int64_t run = new_run(db);
  // An Ascend run: step_trace_time.csv and trace_view's ProfilerStep spans of the same three
  // steps, and the GPU analysis's windows of the ProfilerSteps (drawn as s1 s1 s2 s2 ... before).
  for (int64_t s = 1; s <= 3; ++s) {
    add_step(db, run, "ProfilerStep", 0, s, 58, 18);
    add_step(db, run, "step_trace_time", 0, s, 58, 18);
    add_step(db, run, "gpu_breakdown", 0, s, 58, 17);
  }
  auto charts = app::load_run_charts(db, run);
  REQUIRE(charts.step_charts_size() == 2);
  CHECK(charts.step_charts(0).source() == "step_trace_time");
  CHECK(charts.step_charts(0).title() == "step_trace_time.csv (Ascend PyTorch profiler)");
  CHECK(charts.step_charts(1).source() == "ProfilerStep");
  for (const auto& c : charts.step_charts()) {
    INFO(c.source());
    REQUIRE(c.bars_size() == 3);
    CHECK(c.steps_per_bar() == 1);
    CHECK(c.breakdown());
    for (int i = 0; i < 3; ++i) CHECK(c.bars(i).step() == i + 1);  // each step once
    CHECK(c.bars(0).total_us() == Approx(58000));
    REQUIRE(c.bars(0).segments_size() == 3);
    CHECK(c.bars(0).segments(0).name() == "computing");
    CHECK(c.bars(0).segments(0).us() == Approx(18000));
  }
  // The windows not drawn are named, once.
  CHECK_THAT(charts.step_charts(0).note(),
             Catch::Contains("Also recorded, not drawn: GPU activity within each ProfilerStep"));
  CHECK(charts.step_charts(1).note().empty());
}

TEST_CASE("step charts: a source with step times only is drawn when none has a breakdown") {
  store::Database db(":memory:");
  int64_t run = new_run(db);
  add_step(db, run, "ProfilerStep", 0, 551, 210);  // a CPU-only trace
  add_step(db, run, "gpu_breakdown", 0, 551, 210);
  auto charts = app::load_run_charts(db, run);
  REQUIRE(charts.step_charts_size() == 1);
  const auto& c = charts.step_charts(0);
  CHECK(c.source() == "ProfilerStep");
  CHECK_FALSE(c.breakdown());
  REQUIRE(c.bars_size() == 1);
  REQUIRE(c.bars(0).segments_size() == 1);
  CHECK(c.bars(0).segments(0).name() == "whole step");
  CHECK(c.note().empty());  // a source without a breakdown is not worth naming
}

TEST_CASE("step charts: a long run is averaged into at most 200 bars with each group's range") {
  store::Database db(":memory:");
  int64_t run = new_run(db);
  // 1,250 steps of one rank (a CPU run drew 1,250 bars): 10 ms, every 7th 17 ms.
  for (int64_t s = 1; s <= 1250; ++s) add_step(db, run, "ProfilerStep", 0, s, s % 7 ? 10 : 17, 4);
  auto charts = app::load_run_charts(db, run);
  REQUIRE(charts.step_charts_size() == 1);
  const auto& c = charts.step_charts(0);
  CHECK(c.steps() == 1250);
  CHECK(c.steps_per_bar() == 7);  // ceil(1250 / 200)
  CHECK(c.bars_size() == 179);    // ceil(1250 / 7)
  CHECK(c.bars(0).step() == 1);
  CHECK(c.bars(0).last_step() == 7);
  CHECK(c.bars(0).steps() == 7);
  CHECK(c.bars(0).total_us() == Approx((6 * 10 + 17) * 1000.0 / 7));
  CHECK(c.bars(0).min_total_us() == Approx(10000));
  CHECK(c.bars(0).max_total_us() == Approx(17000));
  CHECK(c.bars(178).step() == 1247);
  CHECK(c.bars(178).steps() == 4);
  CHECK_THAT(c.note(), Catch::StartsWith("1250 steps: each bar is the mean of up to 7"));
  double segments = 0;
  for (const auto& s : c.bars(0).segments()) segments += s.us();
  CHECK(segments == Approx(c.bars(0).total_us()));

  // 300 ranks of 2 steps: a bar per rank for the first 200, and the note says so.
  store::Database many(":memory:");
  int64_t wide = new_run(many);
  for (int64_t r = 0; r < 300; ++r)
    for (int64_t s = 1; s <= 2; ++s) add_step(many, wide, "cluster_step_trace_time", r, s, 5, 1);
  const auto w = app::load_run_charts(many, wide).step_charts(0);
  CHECK(w.ranks() == 300);
  CHECK(w.bars_size() == 200);
  CHECK(w.steps_per_bar() == 2);
  CHECK_THAT(w.note(), Catch::Contains("The first 200 of 300 ranks are shown."));
}

TEST_CASE("the Roofline says why ops have no point") {
  store::Database db(":memory:");
  int64_t run = new_run(db);
  CHECK_THAT(app::load_run_charts(db, run).roofline().note(),
             Catch::StartsWith("The run has no device op to place"));
  db.prepare(
        "INSERT INTO hardware_specs(run_id, part, match, peak_fp16, bandwidth) VALUES (?1, "
        "'Ascend910B2', 'block_dim', 3.5e14, 1.4e12)")
      .bind(1, run)
      .run();
  auto op = [&](const std::string& name, double intensity, double achieved,
                const std::string& reason) {
    db.prepare(
          "INSERT INTO roofline_ops(run_id, scope, name, total_us, intensity, achieved, bound, "
          "reason) VALUES (?1, 'op', ?2, 10, ?3, ?4, ?5, ?6)")
        .bind(1, run)
        .bind(2, name)
        .bind(3, intensity)
        .bind(4, achieved)
        .bind(5, intensity > 0 ? "memory" : "insufficient_data")
        .bind(6, reason)
        .run();
  };
  op("a", 0, 0, "FLOP counters without byte counters (collect the Memory metric group)");
  op("b", 0, 0, "FLOP counters without byte counters (collect the Memory metric group)");
  op("c", 0, 0, "no input shapes recorded (profile with record_shapes=True)");
  auto roof = app::load_run_charts(db, run).roofline();
  CHECK(roof.points_size() == 0);
  CHECK(roof.roofs_size() == 1);
  CHECK(roof.note() ==
        "None of the 3 device ops has a point: FLOP counters without byte counters (collect the "
        "Memory metric group) (2); no input shapes recorded (profile with record_shapes=True) "
        "(1).");
  op("d", 2.0, 1e12, "");
  roof = app::load_run_charts(db, run).roofline();
  CHECK(roof.points_size() == 1);
  CHECK_THAT(roof.note(), Catch::StartsWith("3 of 4 device ops have no point: "));
  db.exec("DELETE FROM hardware_specs");
  CHECK_THAT(app::load_run_charts(db, run).roofline().note(),
             Catch::StartsWith("No roofs: the peak FLOP/s and memory bandwidth of the device are "
                               "unknown (docs/hardware.md). 3 of 4"));
}

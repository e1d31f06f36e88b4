#include "app/run_charts.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;
namespace {

void add_segment(v1::StepBar& bar, const char* name, double us) {
  if (us <= 0) return;
  auto* s = bar.add_segments();
  s->set_name(name);
  s->set_us(us);
}

// Steps the run recorded; the GPU analyzer's derived windows only when there are none.
void load_steps(store::Database& db, int64_t run_id, int max_bars, v1::RunCharts& out) {
  for (const char* table : {"recorded_steps", "steps"}) {
    auto st = db.prepare(std::string("SELECT step, rank, source, dur_ns, computing_us, "
                                     "comm_not_overlapped_us, comm_us, free_us FROM ") +
                         table + " WHERE run_id=?1 ORDER BY rank, step LIMIT ?2");
    st.bind(1, run_id).bind(2, static_cast<int64_t>(max_bars));
    while (st.step()) {
      auto* bar = out.add_steps();
      bar->set_step(st.int64(0));
      bar->set_rank(st.int64(1));
      bar->set_source(st.text(2));
      double computing = st.is_null(4) ? 0 : st.real(4);
      double comm = !st.is_null(5) ? st.real(5) : st.is_null(6) ? 0 : st.real(6);
      double free = st.is_null(7) ? 0 : st.real(7);
      add_segment(*bar, "computing", computing);
      add_segment(*bar, "communication (not overlapped)", comm);
      add_segment(*bar, "free", free);
      double parts = computing + comm + free;
      double total = st.is_null(3) ? parts : static_cast<double>(st.int64(3)) / 1000.0;
      // Time the breakdown does not account for (e.g. a step measured end to end).
      if (total > parts * 1.001) add_segment(*bar, "other", total - parts);
      bar->set_total_us(std::max(total, parts));
    }
    if (out.steps_size() > 0) return;
  }
}

void load_roofline(store::Database& db, int64_t run_id, int max_points, v1::RunCharts& out) {
  auto* roof = out.mutable_roofline();
  auto hw = db.prepare(
      "SELECT coalesce(part,''), peak_fp32, peak_tf32, peak_fp16, peak_bf16, peak_int8, "
      "peak_vector, bandwidth FROM hardware_specs WHERE run_id=?1 LIMIT 1");
  hw.bind(1, run_id);
  if (hw.step()) {
    roof->set_hardware(hw.text(0));
    double bw = hw.is_null(7) ? 0 : hw.real(7);
    const char* names[] = {"fp32", "tf32", "fp16", "bf16", "int8", "vector"};
    for (int i = 0; i < 6; ++i) {
      if (hw.is_null(1 + i) || hw.real(1 + i) <= 0) continue;
      auto* r = roof->add_roofs();
      r->set_precision(names[i]);
      r->set_peak_flops(hw.real(1 + i));
      r->set_bandwidth(bw);
    }
  }
  auto ops = db.prepare(
      "SELECT name, coalesce(type,''), intensity, achieved, coalesce(total_us,0), "
      "coalesce(share,0), bound, coalesce(precision,'') FROM roofline_ops WHERE run_id=?1 AND "
      "intensity > 0 AND achieved > 0 ORDER BY total_us DESC LIMIT ?2");
  ops.bind(1, run_id).bind(2, static_cast<int64_t>(max_points));
  while (ops.step()) {
    auto* p = roof->add_points();
    p->set_name(ops.text(0));
    p->set_type(ops.text(1));
    p->set_intensity(ops.real(2));
    p->set_achieved(ops.real(3));
    p->set_total_us(ops.real(4));
    p->set_share(ops.real(5));
    p->set_bound(ops.text(6));
    p->set_precision(ops.text(7));
  }
}

}  // namespace

v1::RunCharts load_run_charts(store::Database& db, int64_t run_id, int max_bars, int max_points) {
  v1::RunCharts out;
  load_steps(db, run_id, max_bars, out);
  load_roofline(db, run_id, max_points, out);
  return out;
}

}  // namespace perfsage::app

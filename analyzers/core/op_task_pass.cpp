#include "analyzers/core/op_task_pass.h"

#include "store/block_scan.h"

namespace perfsage::analyzers {

OpTaskPass read_op_task_pass(store::Database& db, int64_t run_id) {
  OpTaskPass out;
  const auto& schema = store::op_task_schema();
  auto col = [&](const char* name) { return store::column_index(schema, name); };
  const int c_rank = col("rank"), c_device = col("device_id"), c_stream = col("stream_id"),
            c_start = col("start_ns"), c_dur = col("dur_ns"), c_wait = col("wait_ns"),
            c_name = col("name"), c_type = col("type"), c_core = col("core_type"),
            c_in = col("input_formats"), c_out = col("output_formats"),
            c_shapes = col("input_shapes");
  store::BlockScan scan(db, schema, run_id, std::nullopt,
                        {"rank", "device_id", "stream_id", "start_ns", "dur_ns", "wait_ns", "name",
                         "type", "core_type", "input_formats", "output_formats", "input_shapes"});
  store::BlockTextIds names(out.texts, c_name), types(out.texts, c_type), cores(out.texts, c_core),
      ins(out.texts, c_in), outs(out.texts, c_out), shapes(out.texts, c_shapes);
  out.tasks.reserve(store::block_rows(db, schema, run_id, std::nullopt));
  while (scan.next()) {
    auto& b = scan.block();
    for (auto* ids : {&names, &types, &cores, &ins, &outs, &shapes}) ids->start_block(b);
    auto opt_int = [&](int c, size_t r, int64_t none) {
      return b.is_null(c, r) ? none : b.int_at(c, r);
    };
    auto opt_text = [&](store::BlockTextIds& ids, int c, size_t r) {
      return b.is_null(c, r) ? OpTaskPass::kNone : ids.at(b, r);
    };
    for (size_t r = 0; r < b.rows(); ++r) {
      out.tasks.push_back(
          {b.int_at(c_rank, r), opt_int(c_device, r, -1), opt_int(c_stream, r, -1),
           opt_int(c_start, r, OpTaskPass::kNoStart), opt_int(c_dur, r, 0), opt_int(c_wait, r, 0),
           scan.rowid(r), names.at(b, r), types.at(b, r), opt_text(cores, c_core, r),
           opt_text(ins, c_in, r), opt_text(outs, c_out, r), opt_text(shapes, c_shapes, r),
           b.is_null(c_rank, r), b.is_null(c_dur, r), b.is_null(c_wait, r), b.is_null(c_name, r)});
    }
  }
  return out;
}

}  // namespace perfsage::analyzers

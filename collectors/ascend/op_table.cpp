#include "collectors/ascend/op_table.h"

#include <array>
#include <charconv>

#include "collectors/ascend/layout.h"
#include "collectors/ascend/op_columns.h"
#include "collectors/common/csv_reader.h"
#include "collectors/common/csv_values.h"
#include "collectors/common/file_reader.h"
#include "collectors/common/record_sink.h"
#include "collectors/common/slots.h"
#include "store/json_text.h"

namespace perfsage::collectors::ascend {

namespace {

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

// Sets a text field from a cell through `normalise` (a *_into function), reusing the string's
// capacity from the previous row; a cell without a value leaves the field empty.
template <class Normalise>
void set_text(std::optional<std::string>& out, std::string_view cell, Normalise normalise) {
  if (!out) out.emplace();
  if (!normalise(cell, *out)) out.reset();
}

bool copy_unless_null(std::string_view cell, std::string& out) {
  if (is_null_cell(cell)) return false;
  out.assign(cell);
  return true;
}

void append_number(std::string& out, double v) {
  char buf[32];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? p : buf);
}

// Per-row state that is reused across rows to avoid allocations.
struct RowState {
  store::OpTask task;
  std::string metrics;
  std::array<std::optional<double>, kRatioCount> ratio_side[3];  // by Side
  std::array<std::string_view, kRatioCount> ratio_key_side[3];
  double cube_fops = 0, vector_fops = 0, read_kb = 0, write_kb = 0;
  bool has_cube = false, has_vector = false, has_read = false, has_write = false;
};

constexpr size_t kTasksPerBatch = 4096;

class Parser {
 public:
  Parser(const OpTablePlan& plan, const CsvHeader& header, CollectContext& ctx, const Location& loc)
      : plan_(plan), header_(header), ctx_(ctx), loc_(loc) {
    for (const auto& c : plan.columns) has_column_[static_cast<size_t>(c.field)] = true;
  }

  // Fills row_.task from the reader's current record; false when the row was skipped.
  bool parse(const CsvReader& r) {
    if (r.size() != plan_.columns.size()) {
      ctx_.skip("row has " + std::to_string(r.size()) + " fields, header has " +
                    std::to_string(plan_.columns.size()),
                where(r));
      return false;
    }
    reset();
    auto& t = row_.task;
    std::string_view type_cell, core_cell;
    bool have_dur = false;
    for (size_t i = 0; i < plan_.columns.size(); ++i) {
      const OpColumn& col = plan_.columns[i];
      std::string_view v = r[i];
      switch (col.field) {
        case OpField::name:
          t.name.assign(v);
          break;
        case OpField::type:
          type_cell = v;
          break;
        case OpField::core:
          core_cell = v;
          break;
        case OpField::start:
          if (!time(v, t.start_ns, i, r)) return false;
          break;
        case OpField::dur: {
          std::optional<int64_t> d;
          if (!time(v, d, i, r)) return false;
          if (d) {
            t.dur_ns = *d;
            have_dur = true;
          }
          break;
        }
        case OpField::wait:
          if (!time(v, t.wait_ns, i, r)) return false;
          break;
        case OpField::block:
          if (!integer(v, t.block_dim, i, r)) return false;
          break;
        case OpField::mix_block:
          if (!integer(v, t.mix_block_dim, i, r)) return false;
          break;
        case OpField::device:
          if (!integer(v, t.device_id, i, r)) return false;
          break;
        case OpField::step:
          if (!integer(v, t.step, i, r)) return false;
          break;
        case OpField::model:
          if (!integer(v, t.model_id, i, r)) return false;
          break;
        case OpField::stream:
          if (!integer(v, t.stream_id, i, r)) return false;
          break;
        case OpField::task:
          if (!integer(v, t.task_id, i, r)) return false;
          break;
        case OpField::op_state:
          set_text(t.op_state, v, copy_unless_null);
          break;
        case OpField::in_shapes:
          set_text(t.input_shapes, v, normalise_shapes_into);
          break;
        case OpField::out_shapes:
          set_text(t.output_shapes, v, normalise_shapes_into);
          break;
        case OpField::in_dtypes:
          set_text(t.input_dtypes, v, normalise_dtypes_into);
          break;
        case OpField::out_dtypes:
          set_text(t.output_dtypes, v, normalise_dtypes_into);
          break;
        case OpField::in_formats:
          set_text(t.input_formats, v, copy_unless_null);
          break;
        case OpField::out_formats:
          set_text(t.output_formats, v, copy_unless_null);
          break;
        case OpField::aicore_time:
          if (!real(v, t.aicore_time_us, i, r)) return false;
          break;
        case OpField::aiv_time:
          if (!real(v, t.aiv_time_us, i, r)) return false;
          break;
        case OpField::cube_fops:
          if (!sum(v, row_.cube_fops, row_.has_cube, i, r)) return false;
          break;
        case OpField::vector_fops:
          if (!sum(v, row_.vector_fops, row_.has_vector, i, r)) return false;
          break;
        case OpField::read_kb:
          if (!sum(v, row_.read_kb, row_.has_read, i, r)) return false;
          break;
        case OpField::write_kb:
          if (!sum(v, row_.write_kb, row_.has_write, i, r)) return false;
          break;
        case OpField::metric:
          metric(col, v);
          break;
        default: {  // pipeline ratios, chosen per core after the row is read
          int k = static_cast<int>(col.field) - static_cast<int>(OpField::mac_ratio);
          std::optional<double> x;
          if (!real(v, x, i, r)) return false;
          row_.ratio_side[static_cast<int>(col.side)][k] = x;
          row_.ratio_key_side[static_cast<int>(col.side)][k] = col.json_key;
          break;
        }
      }
    }
    if (t.name.empty()) {
      ctx_.skip("empty operator name", where(r));
      return false;
    }
    if (!have_dur) {
      ctx_.skip("no duration", where(r));
      return false;
    }
    finish(type_cell, core_cell);
    return true;
  }

  store::OpTask& task() { return row_.task; }

 private:
  std::string where(const CsvReader& r) const { return "line " + std::to_string(r.line()); }

  void bad(size_t col, const CsvReader& r) {
    ctx_.skip("bad number in column " + header_.names()[col], where(r));
  }
  template <class T, class Parse>
  bool typed(std::string_view v, std::optional<T>& out, size_t col, const CsvReader& r,
             Parse parse) {
    if (parse_optional(v, out, parse)) return true;
    bad(col, r);
    return false;
  }
  bool time(std::string_view v, std::optional<int64_t>& out, size_t col, const CsvReader& r) {
    return typed(v, out, col, r, parse_us_to_ns);
  }
  bool integer(std::string_view v, std::optional<int64_t>& out, size_t col, const CsvReader& r) {
    return typed(v, out, col, r, parse_int);
  }
  bool real(std::string_view v, std::optional<double>& out, size_t col, const CsvReader& r) {
    return typed(v, out, col, r, parse_real);
  }
  bool sum(std::string_view v, double& acc, bool& has, size_t col, const CsvReader& r) {
    std::optional<double> x;
    if (!real(v, x, col, r)) return false;
    if (x) {
      acc += *x;
      has = true;
    }
    return true;
  }

  void metric(const OpColumn& col, std::string_view v) {
    if (is_null_cell(v)) return;
    row_.metrics += row_.metrics.empty() ? '{' : ',';
    row_.metrics += col.json_key;
    double x;
    if (parse_real(v, x) == Cell::value)
      append_number(row_.metrics, x);
    else
      store::append_json_string(row_.metrics, v);
  }

  void reset() {
    auto& t = row_.task;
    t.rank = loc_.rank;
    t.device_id = loc_.device_id;
    t.step.reset();
    t.model_id.reset();
    t.stream_id.reset();
    t.task_id.reset();
    t.start_ns.reset();
    t.wait_ns.reset();
    t.block_dim.reset();
    t.mix_block_dim.reset();
    // Text fields that a column of this table sets are overwritten (or emptied) by every row,
    // keeping their strings' capacity; only the others are cleared here.
    for (auto [field, text] : {std::pair{OpField::op_state, &t.op_state},
                               {OpField::in_shapes, &t.input_shapes},
                               {OpField::in_dtypes, &t.input_dtypes},
                               {OpField::in_formats, &t.input_formats},
                               {OpField::out_shapes, &t.output_shapes},
                               {OpField::out_dtypes, &t.output_dtypes},
                               {OpField::out_formats, &t.output_formats}}) {
      if (!has_column_[static_cast<size_t>(field)]) text->reset();
    }
    t.aicore_time_us.reset();
    t.aiv_time_us.reset();
    t.dur_ns = 0;
    row_.metrics.clear();
    for (auto& side : row_.ratio_side) side.fill(std::nullopt);
    row_.cube_fops = row_.vector_fops = row_.read_kb = row_.write_kb = 0;
    row_.has_cube = row_.has_vector = row_.has_read = row_.has_write = false;
  }

  void finish(std::string_view type_cell, std::string_view core_cell) {
    auto& t = row_.task;
    if (is_null_cell(type_cell))
      t.type = type_from_name(t.name);
    else
      t.type.assign(type_cell);
    t.core_type = normalise_core(core_cell, t.name);
    t.cube_fops = row_.has_cube ? std::optional<double>(row_.cube_fops) : std::nullopt;
    t.vector_fops = row_.has_vector ? std::optional<double>(row_.vector_fops) : std::nullopt;
    t.read_bytes = row_.has_read ? std::optional<double>(row_.read_kb * 1024) : std::nullopt;
    t.write_bytes = row_.has_write ? std::optional<double>(row_.write_kb * 1024) : std::nullopt;
    // A ratio is taken unprefixed if present, else from the core that ran the task; the other
    // core's value stays available in metrics.
    bool vector_first = t.core_type == "AI_VECTOR_CORE" || t.core_type == "MIX_AIV";
    int order[3] = {0, vector_first ? 2 : 1, vector_first ? 1 : 2};
    std::optional<double>* fields[kRatioCount] = {&t.mac_ratio,    &t.vec_ratio,  &t.scalar_ratio,
                                                  &t.mte1_ratio,   &t.mte2_ratio, &t.mte3_ratio,
                                                  &t.fixpipe_ratio};
    for (int k = 0; k < kRatioCount; ++k) {
      fields[k]->reset();
      for (int side : order) {
        const auto& v = row_.ratio_side[side][k];
        if (!v) continue;
        if (!*fields[k]) {
          *fields[k] = v;
          continue;
        }
        row_.metrics += row_.metrics.empty() ? '{' : ',';
        row_.metrics += row_.ratio_key_side[side][k];
        append_number(row_.metrics, *v);
      }
    }
    if (row_.metrics.empty()) {
      t.metrics.reset();
    } else {
      row_.metrics += '}';
      if (t.metrics)
        t.metrics->assign(row_.metrics);
      else
        t.metrics = row_.metrics;
    }
  }

  const OpTablePlan& plan_;
  const CsvHeader& header_;
  CollectContext& ctx_;
  Location loc_;
  RowState row_;
  std::array<bool, static_cast<size_t>(OpField::metric) + 1> has_column_{};  // by OpField
};

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
  std::string data = read_file(probe.path);
  CsvReader reader(data);
  if (!reader.next()) ctx.fail("line 1", "empty file, expected an op table header");
  CsvHeader header(reader.fields());
  OpTablePlan plan = plan_op_table(header);
  if (!plan.missing.empty()) {
    std::string list;
    for (const auto& m : plan.missing) list += (list.empty() ? "" : ", ") + m;
    ctx.fail("line 1", "missing required column(s): " + list);
  }
  auto& hints = ctx.hints();
  if (hints.device.empty()) hints.device = "ascend";
  if (hints.framework.empty()) hints.framework = plan.kernel_details ? "pytorch-npu" : "msprof";

  Location loc = locate(probe.path);
  Parser parser(plan, header, ctx, loc);
  // Rows are parsed here while a second thread inserts the previous batch; the slots of a
  // batch are reused, so a row's strings keep their capacity from batch to batch.
  RecordSink<Slots<store::OpTask>> sink(ctx.out(), threaded_,
                                        [](store::RunWriter& out, Slots<store::OpTask>& batch) {
                                          for (const auto& task : batch) out.add(task);
                                        });
  while (reader.next()) {
    if (!reader.error().empty()) {
      ctx.skip(reader.error(), "line " + std::to_string(reader.line()));
      continue;
    }
    if (!parser.parse(reader)) continue;
    auto& batch = sink.batch();
    batch.next() = parser.task();
    ctx.record();
    if (batch.size() == kTasksPerBatch) sink.submit();
  }
  sink.finish();
}

}  // namespace perfsage::collectors::ascend

#include "collectors/ascend/op_row_parser.h"

#include <charconv>

#include "collectors/common/csv_values.h"
#include "store/json_text.h"

namespace perfsage::collectors::ascend {

namespace {

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

// True when `s` is a number as JSON writes it: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool is_json_number(std::string_view s) {
  size_t i = 0, n = s.size();
  auto digits = [&] {
    size_t b = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') ++i;
    return i - b;
  };
  if (i < n && s[i] == '-') ++i;
  if (i < n && s[i] == '0') {
    ++i;
  } else if (digits() == 0) {
    return false;
  }
  if (i < n && s[i] == '.') {
    ++i;
    if (digits() == 0) return false;
  }
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < n && (s[i] == '+' || s[i] == '-')) ++i;
    if (digits() == 0) return false;
  }
  return i == n;
}

void append_number(std::string& out, double v) {
  char buf[32];
  auto [p, ec] = std::to_chars(buf, buf + sizeof buf, v);
  out.append(buf, ec == std::errc() ? p : buf);
}

// Per-row state that is reused across rows to avoid allocations.
}  // namespace

struct OpRowParser::RowState {
  store::OpTask task;
  std::string metrics;
  std::array<std::optional<double>, kRatioCount> ratio_side[3];  // by Side
  std::array<std::string_view, kRatioCount> ratio_key_side[3];
  double cube_fops = 0, vector_fops = 0, read_kb = 0, write_kb = 0;
  bool has_cube = false, has_vector = false, has_read = false, has_write = false;
};

OpRowParser::OpRowParser(const OpTablePlan& plan, const CsvHeader& header, const Location& loc)
    : plan_(plan), header_(header), loc_(loc), row_(std::make_unique<RowState>()) {
  for (const auto& c : plan.columns) has_column_[static_cast<size_t>(c.field)] = true;
}

OpRowParser::~OpRowParser() = default;

store::OpTask& OpRowParser::task() {
  return row_->task;
}

bool OpRowParser::parse(const CsvReader& r, SkipLog& skips) {
  skips_ = &skips;
  {
    if (r.size() != plan_.columns.size()) {
      skips_->add("row has " + std::to_string(r.size()) + " fields, header has " +
                      std::to_string(plan_.columns.size()),
                  r.line());
      return false;
    }
    reset();
    auto& t = row_->task;
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
          if (!sum(v, row_->cube_fops, row_->has_cube, i, r)) return false;
          break;
        case OpField::vector_fops:
          if (!sum(v, row_->vector_fops, row_->has_vector, i, r)) return false;
          break;
        case OpField::read_kb:
          if (!sum(v, row_->read_kb, row_->has_read, i, r)) return false;
          break;
        case OpField::write_kb:
          if (!sum(v, row_->write_kb, row_->has_write, i, r)) return false;
          break;
        case OpField::metric:
          metric(col, v);
          break;
        default: {  // pipeline ratios, chosen per core after the row is read
          int k = static_cast<int>(col.field) - static_cast<int>(OpField::mac_ratio);
          std::optional<double> x;
          if (!real(v, x, i, r)) return false;
          row_->ratio_side[static_cast<int>(col.side)][k] = x;
          row_->ratio_key_side[static_cast<int>(col.side)][k] = col.json_key;
          break;
        }
      }
    }
    if (t.name.empty()) {
      skips_->add("empty operator name", r.line());
      return false;
    }
    if (!have_dur) {
      skips_->add("no duration", r.line());
      return false;
    }
    finish(type_cell, core_cell);
    return true;
  }
}

void OpRowParser::bad(size_t col, const CsvReader& r) {
  skips_->add("bad number in column " + header_.names()[col], r.line());
}
template <class T, class Parse>
bool OpRowParser::typed(std::string_view v, std::optional<T>& out, size_t col, const CsvReader& r,
                        Parse parse) {
  if (parse_optional(v, out, parse)) return true;
  bad(col, r);
  return false;
}
bool OpRowParser::time(std::string_view v, std::optional<int64_t>& out, size_t col,
                       const CsvReader& r) {
  return typed(v, out, col, r, parse_us_to_ns);
}
bool OpRowParser::integer(std::string_view v, std::optional<int64_t>& out, size_t col,
                          const CsvReader& r) {
  return typed(v, out, col, r, parse_int);
}
bool OpRowParser::real(std::string_view v, std::optional<double>& out, size_t col,
                       const CsvReader& r) {
  return typed(v, out, col, r, parse_real);
}
bool OpRowParser::sum(std::string_view v, double& acc, bool& has, size_t col, const CsvReader& r) {
  std::optional<double> x;
  if (!real(v, x, col, r)) return false;
  if (x) {
    acc += *x;
    has = true;
  }
  return true;
}

void OpRowParser::metric(const OpColumn& col, std::string_view v) {
  if (is_null_cell(v)) return;
  row_->metrics += row_->metrics.empty() ? '{' : ',';
  row_->metrics += col.json_key;
  double x;
  if (is_json_number(v))  // most cells: copied as written, no conversion and back
    row_->metrics += v;
  else if (parse_real(v, x) == Cell::value)
    append_number(row_->metrics, x);
  else
    store::append_json_string(row_->metrics, v);
}

void OpRowParser::reset() {
  auto& t = row_->task;
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
  row_->metrics.clear();
  for (auto& side : row_->ratio_side) side.fill(std::nullopt);
  row_->cube_fops = row_->vector_fops = row_->read_kb = row_->write_kb = 0;
  row_->has_cube = row_->has_vector = row_->has_read = row_->has_write = false;
}

void OpRowParser::finish(std::string_view type_cell, std::string_view core_cell) {
  auto& t = row_->task;
  if (is_null_cell(type_cell))
    t.type = type_from_name(t.name);
  else
    t.type.assign(type_cell);
  t.core_type = normalise_core(core_cell, t.name);
  t.cube_fops = row_->has_cube ? std::optional<double>(row_->cube_fops) : std::nullopt;
  t.vector_fops = row_->has_vector ? std::optional<double>(row_->vector_fops) : std::nullopt;
  t.read_bytes = row_->has_read ? std::optional<double>(row_->read_kb * 1024) : std::nullopt;
  t.write_bytes = row_->has_write ? std::optional<double>(row_->write_kb * 1024) : std::nullopt;
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
      const auto& v = row_->ratio_side[side][k];
      if (!v) continue;
      if (!*fields[k]) {
        *fields[k] = v;
        continue;
      }
      row_->metrics += row_->metrics.empty() ? '{' : ',';
      row_->metrics += row_->ratio_key_side[side][k];
      append_number(row_->metrics, *v);
    }
  }
  if (row_->metrics.empty()) {
    t.metrics.reset();
  } else {
    row_->metrics += '}';
    if (t.metrics)
      t.metrics->assign(row_->metrics);
    else
      t.metrics = row_->metrics;
  }
}

}  // namespace perfsage::collectors::ascend

#include "collectors/ascend/op_statistic.h"

#include "collectors/ascend/layout.h"
#include "collectors/common/csv_reader.h"
#include "collectors/common/csv_values.h"
#include "store/count_text.h"
#include "store/file_bytes.h"

namespace perfsage::collectors::ascend {

namespace {
bool looks_like_op_statistic(const CsvHeader& h) {
  return h.find("OP Type") && h.find("Count") && h.find("Total Time(us)");
}
}  // namespace

int OpStatisticCollector::detect(const FileProbe& probe) const {
  CsvReader r(probe.head);
  if (!r.next() || !looks_like_op_statistic(CsvHeader(r.fields()))) return 0;
  return base_name(probe.path).rfind("op_statistic", 0) == 0 ? 100 : 40;
}

void OpStatisticCollector::collect(const FileProbe& probe, CollectContext& ctx) const {
  std::string data = store::read_file(probe.path);
  CsvReader reader(data);
  if (!reader.next()) ctx.fail("line 1", "empty file, expected an op_statistic header");
  CsvHeader header(reader.fields());
  if (!looks_like_op_statistic(header))
    ctx.fail("line 1", "missing required columns: OP Type, Count, Total Time(us)");
  size_t count_col = *header.find("Count"), total_col = *header.find("Total Time(us)");
  int64_t types = 0, tasks = 0;
  double total_us = 0;
  while (reader.next()) {
    std::string where = "line " + std::to_string(reader.line());
    if (!reader.error().empty() || reader.size() != header.size()) {
      ctx.skip(reader.error().empty() ? "row has the wrong number of fields" : reader.error(),
               where);
      continue;
    }
    int64_t n;
    double t;
    if (parse_int(reader[count_col], n) != Cell::value ||
        parse_real(reader[total_col], t) != Cell::value) {
      ctx.skip("bad number in Count or Total Time(us)", where);
      continue;
    }
    ++types;
    tasks += n;
    total_us += t;
  }
  ctx.warn("per-type aggregate of " + store::count_text(types, "op type") + ", " +
           store::count_text(tasks, "task") + ", " + std::to_string(total_us) +
           " us; not stored (recomputed from the op table)");
  if (ctx.hints().device.empty()) ctx.hints().device = "ascend";
}

}  // namespace perfsage::collectors::ascend

// One op-table row (op_summary / kernel_details) to a store::OpTask: timestamps to integer
// nanoseconds, shapes and data types normalised, the pipeline ratios of the core that ran the
// task, every other metric column into the metrics JSON. One parser per thread; it reuses its
// strings from row to row.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "collectors/ascend/layout.h"
#include "collectors/ascend/op_columns.h"
#include "collectors/common/csv_reader.h"
#include "store/records.h"

namespace perfsage::collectors::ascend {

// Rows a parser skipped, in order, as (reason, line in the reader's numbering): a parser
// thread cannot call into the CollectContext, so its skips are replayed there in file order,
// once the chunk's first line in the file is known.
struct SkipLog {
  std::vector<std::pair<std::string, size_t>> entries;
  void add(std::string reason, size_t line) { entries.emplace_back(std::move(reason), line); }
};

class OpRowParser {
 public:
  OpRowParser(const OpTablePlan& plan, const CsvHeader& header, const Location& loc);
  ~OpRowParser();
  OpRowParser(const OpRowParser&) = delete;
  OpRowParser& operator=(const OpRowParser&) = delete;

  // Fills task() from the reader's current record; false (and one entry in `skips`) when the
  // row cannot be used.
  bool parse(const CsvReader& r, SkipLog& skips);
  store::OpTask& task();

 private:
  struct RowState;
  void bad(size_t col, const CsvReader& r);
  template <class T, class Parse>
  bool typed(std::string_view v, std::optional<T>& out, size_t col, const CsvReader& r,
             Parse parse);
  bool time(std::string_view v, std::optional<int64_t>& out, size_t col, const CsvReader& r);
  bool integer(std::string_view v, std::optional<int64_t>& out, size_t col, const CsvReader& r);
  bool real(std::string_view v, std::optional<double>& out, size_t col, const CsvReader& r);
  bool sum(std::string_view v, double& acc, bool& has, size_t col, const CsvReader& r);
  void metric(const OpColumn& col, std::string_view v);
  void reset();
  void finish(std::string_view type_cell, std::string_view core_cell);

  const OpTablePlan& plan_;
  const CsvHeader& header_;
  Location loc_;
  std::unique_ptr<RowState> row_;
  SkipLog* skips_ = nullptr;
  std::array<bool, static_cast<size_t>(OpField::metric) + 1> has_column_{};  // by OpField
};

}  // namespace perfsage::collectors::ascend

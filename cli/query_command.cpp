// perfsage query: read-only SQL over a store. host_events and device_events are virtual tables
// that only a perfsage connection knows, so this is how users (and developers checking a query
// plan) reach them.
#include <boost/program_options.hpp>

#include "app/read_query.h"
#include "cli/command_line.h"
#include "cli/commands.h"

namespace po = boost::program_options;

namespace perfsage::cli {
namespace {

// Tab-separated output: tabs and newlines inside values are escaped so each row stays a line.
void put_cell(std::ostream& out, std::string_view v) {
  for (char c : v) {
    if (c == '\t') {
      out << "\\t";
    } else if (c == '\n') {
      out << "\\n";
    } else if (c == '\\') {
      out << "\\\\";
    } else {
      out << c;
    }
  }
}

}  // namespace

int run_query(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage query --store FILE (SQL | --tables)");
  std::string store_path, sql;
  opts.add_options()("help,h", "show this help")("store", po::value(&store_path)->required(),
                                                 "SQLite store to read (opened read-only)")(
      "header", po::value<bool>()->default_value(true), "print the column names first")(
      "tables", "list the tables and views with their columns, the event tables included")(
      "sql", po::value(&sql), "one SQL statement that only reads");
  po::positional_options_description pos;
  pos.add("sql", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("query", args, opts, pos, vm, out, err, [&] {
        if (sql.empty() == (vm.count("tables") == 0))
          throw po::error("give one SQL statement or --tables");
      })) {
    return *stop;
  }
  if (vm.count("tables")) {
    // host_events and device_events exist only on perfsage's connections: sqlite_schema does
    // not list them.
    sql = R"sql(
WITH t(name) AS (
  SELECT name FROM sqlite_schema WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%'
  UNION ALL VALUES ('host_events'), ('device_events'))
SELECT t.name AS "table", group_concat(c.name, ', ') AS columns
FROM t, pragma_table_info(t.name) c GROUP BY t.name ORDER BY t.name)sql";
  }
  try {
    // A read-only connection that refuses ATTACH, VACUUM INTO and setting pragmas (app/).
    bool header = vm["header"].as<bool>();
    bool first = true;
    app::read_query(store_path, sql, [&](const app::QueryRow& row) {
      if (first && header) {
        for (size_t i = 0; i < row.columns.size(); ++i) out << (i ? "\t" : "") << row.columns[i];
        out << "\n";
      }
      first = false;
      for (size_t i = 0; i < row.cells.size(); ++i) {
        if (i) out << "\t";
        if (row.cells[i]) put_cell(out, *row.cells[i]);
      }
      out << "\n";
    });
    return kExitOk;
  } catch (const std::exception& e) {
    err << "perfsage query: " << e.what() << "\n";
    return kExitInput;
  }
}

}  // namespace perfsage::cli

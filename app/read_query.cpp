#include "app/read_query.h"

#include "store/database.h"
#include "store/user_sql.h"

namespace perfsage::app {

void read_query(const std::string& store_path, std::string_view sql,
                const std::function<void(const QueryRow&)>& row) {
  auto db = store::Database::open_reader(store_path);
  store::allow_only_reads(*db);
  auto st = store::prepare_one_statement(*db, sql);
  std::vector<std::string> columns;
  for (int i = 0; i < st.column_count(); ++i) columns.push_back(st.column_name(i));
  std::vector<std::optional<std::string_view>> cells(columns.size());
  while (st.step()) {
    for (size_t i = 0; i < cells.size(); ++i) {
      int c = static_cast<int>(i);
      cells[i] = st.is_null(c) ? std::nullopt : std::optional<std::string_view>(st.text_view(c));
    }
    row(QueryRow{columns, cells});
  }
}

}  // namespace perfsage::app

#include "analyzers/graph/match_ops.h"

#include <set>

#include "analyzers/graph/name_match.h"
#include "analyzers/graph/tables.h"
#include "store/bind.h"
#include "store/json_text.h"

namespace perfsage::analyzers {

void match_graph_to_ops(store::Database& db, int64_t run_id) {
  store::Transaction txn(db);
  db.prepare("DELETE FROM graph_op_matches WHERE run_id=?1").bind(1, run_id).run();

  // Dumps of several stages repeat nodes: one entry per (graph, name), originals merged.
  std::vector<graph::NodeRef> nodes;
  std::vector<std::vector<std::string>> originals;
  {
    auto st = db.prepare(
        "SELECT graph, name, group_concat(original_ops, char(31)) FROM graph_nodes "
        "WHERE run_id=?1 GROUP BY graph, name ORDER BY graph, name");
    st.bind(1, run_id);
    while (st.step()) {
      nodes.push_back({st.text(0), st.text(1)});
      std::vector<std::string> names;
      if (!st.is_null(2)) {
        std::string all = st.text(2);
        size_t pos = 0;
        while (pos <= all.size()) {
          size_t end = all.find('\x1f', pos);
          if (end == std::string::npos) end = all.size();
          for (auto& n :
               store::parse_json_string_array(std::string_view(all).substr(pos, end - pos))) {
            names.push_back(std::move(n));
          }
          pos = end + 1;
        }
      }
      originals.push_back(std::move(names));
    }
  }
  if (nodes.empty()) {
    txn.commit();
    return;
  }
  graph::NameIndex index(std::move(nodes), originals);

  auto ops = db.prepare(
      "SELECT name FROM op_tasks WHERE run_id=?1 UNION SELECT name FROM op_stats WHERE run_id=?1");
  ops.bind(1, run_id);
  store::RowInserter insert(db, graph::tables::op_matches());
  while (ops.step()) {
    std::string op = ops.text(0);
    for (const auto& m : index.match(op)) {
      const auto& n = index.nodes()[m.node];
      insert.insert(run_id, n.graph, n.name, op, graph::match_kind_name(m.kind));
    }
  }
  txn.commit();
}

}  // namespace perfsage::analyzers

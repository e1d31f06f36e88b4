#include "store/run_extract.h"

#include <sqlite3.h>
#include <zlib.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>

#include "store/database.h"

namespace perfsage::store {
namespace {

// An extract's uncompressed size is written before its zlib stream; a larger one is refused
// (a damaged or hostile catalog row must not take the importing daemon's memory).
constexpr uint64_t kMaxExtractBytes = uint64_t{2} << 30;

// The action tables are copied by their links to the run's plans, not by a run_id column.
const std::set<std::string> kActionTables = {"action_plans", "action_applies", "action_files",
                                             "action_audit", "action_verdicts"};

std::string quoted(const std::string& name) {
  std::string out = "\"";
  for (char c : name) out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

std::vector<std::string> tables_of(Database& db, const std::string& schema) {
  std::vector<std::string> out;
  auto st = db.prepare("SELECT name FROM " + schema +
                       ".sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND "
                       "sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name");
  while (st.step()) out.push_back(st.text(0));
  return out;
}

bool has(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// The rows of `table` that belong to run `id` (main schema), as a WHERE clause.
std::string rows_of_run(const std::string& table, int64_t id, bool has_run_id) {
  const std::string n = std::to_string(id);
  const std::string plans = "SELECT id FROM main.action_plans WHERE run_id = " + n;
  const std::string applies = "SELECT id FROM main.action_applies WHERE plan_id IN (" + plans + ")";
  if (table == "runs") return "id = " + n;
  if (table == "action_applies" || table == "action_audit") return "plan_id IN (" + plans + ")";
  if (table == "action_files") return "apply_id IN (" + applies + ")";
  if (table == "action_verdicts") return "after_run = " + n;
  if (table == "action_plans") return "run_id = " + n;
  if (has_run_id) return "run_id = " + n;
  return "";
}

// ATTACHes a schema for the scope of one call and DETACHes it again.
class Attached {
 public:
  Attached(Database& db, std::string name) : db_(db), name_(std::move(name)) {
    db_.exec("ATTACH ':memory:' AS " + name_);
  }
  ~Attached() {
    try {
      db_.exec("DETACH " + name_);
    } catch (const StoreError&) {
    }
  }
  Attached(const Attached&) = delete;
  Attached& operator=(const Attached&) = delete;

 private:
  Database& db_;
  std::string name_;
};

std::string compress_bytes(const unsigned char* data, size_t n) {
  uLongf bound = compressBound(static_cast<uLong>(n));
  std::string out(8 + bound, '\0');
  for (int i = 0; i < 8; ++i)
    out[static_cast<size_t>(i)] = static_cast<char>((n >> (8 * i)) & 0xff);
  if (compress2(reinterpret_cast<Bytef*>(out.data() + 8), &bound, data, static_cast<uLong>(n), 6) !=
      Z_OK)
    throw StoreError("run extract: compression failed");
  out.resize(8 + bound);
  return out;
}

// The serialised database, in memory sqlite3_malloc'd for sqlite3_deserialize to own.
std::pair<unsigned char*, uint64_t> decompress_bytes(const std::string& in) {
  if (in.size() < 8)
    throw StoreError("run extract: truncated (" + std::to_string(in.size()) + " bytes)");
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i)
    n |= uint64_t{static_cast<unsigned char>(in[static_cast<size_t>(i)])} << (8 * i);
  if (n == 0 || n > kMaxExtractBytes)
    throw StoreError("run extract: implausible size " + std::to_string(n) + " bytes");
  auto* buf = static_cast<unsigned char*>(sqlite3_malloc64(n));
  if (!buf) throw StoreError("run extract: out of memory for " + std::to_string(n) + " bytes");
  uLongf out_n = static_cast<uLongf>(n);
  if (uncompress(buf, &out_n, reinterpret_cast<const Bytef*>(in.data() + 8),
                 static_cast<uLong>(in.size() - 8)) != Z_OK ||
      out_n != n) {
    sqlite3_free(buf);
    throw StoreError("run extract: damaged compressed data");
  }
  return {buf, n};
}

}  // namespace

void ensure_run_counts(Database& db) {
  db.exec(
      "CREATE TABLE IF NOT EXISTS main.run_counts(run_id INTEGER PRIMARY KEY, ops INTEGER, "
      "kernels INTEGER)");
}

namespace {

// The replica's own tables: where each imported row came from, and the counts of the events
// that stayed with the run's daemon.
void ensure_origins(Database& replica) {
  ensure_run_counts(replica);
  replica.exec(
      "CREATE TABLE IF NOT EXISTS main.catalog_origins(kind TEXT NOT NULL, instance TEXT NOT "
      "NULL, local_id INTEGER NOT NULL, id INTEGER NOT NULL, PRIMARY KEY(kind, instance, "
      "local_id))");
}

void remember(Database& replica, const std::string& kind, const RunOrigin& o, int64_t local,
              int64_t id) {
  auto st = replica.prepare(
      "INSERT OR REPLACE INTO main.catalog_origins(kind, instance, local_id, id) VALUES(?1, ?2, "
      "?3, ?4)");
  st.bind(1, kind).bind(2, o.instance).bind(3, local).bind(4, id);
  st.run();
}

// SQL for the replica's id of an origin's `kind` id held in column `col`; `fallback` when the
// replica has none.
std::string mapped(const std::string& kind, const std::string& instance_param,
                   const std::string& col, const std::string& fallback) {
  return "coalesce((SELECT o.id FROM main.catalog_origins o WHERE o.kind = '" + kind +
         "' AND o.instance = " + instance_param + " AND o.local_id = x." + col + "), " + fallback +
         ")";
}

// Removes what the replica holds of run `id`.
void remove_run(Database& replica, int64_t id) {
  for (const auto& t :
       {std::string("action_files"), std::string("action_audit"), std::string("action_applies"),
        std::string("action_verdicts"), std::string("action_plans")}) {
    replica.exec("DELETE FROM main." + t + " WHERE " + rows_of_run(t, id, false));
  }
  for (const auto& t : tables_of(replica, "main")) {
    if (kActionTables.count(t) || t == "runs") continue;
    auto cols = table_columns(replica, t);
    auto where = rows_of_run(t, id, has(cols, "run_id"));
    if (!where.empty()) replica.exec("DELETE FROM main." + quoted(t) + " WHERE " + where);
  }
  replica.exec("DELETE FROM main.runs WHERE " + rows_of_run("runs", id, false));  // referenced
}

// Copies ext.`table` into main with fresh ids, remembering each (kind = table).
void copy_with_new_ids(Database& replica, const std::string& table, const RunOrigin& origin,
                       const std::vector<std::string>& cols,
                       const std::map<std::string, std::string>& exprs) {
  std::string names, values;
  for (const auto& c : cols) {
    if (c == "id") continue;
    names += (names.empty() ? "" : ", ") + quoted(c);
    auto e = exprs.find(c);
    values += (values.empty() ? "" : ", ") + (e != exprs.end() ? e->second : "x." + quoted(c));
  }
  auto ids = replica.prepare("SELECT id FROM ext." + table + " ORDER BY id");
  auto insert = replica.prepare("INSERT INTO main." + table + "(" + names + ") SELECT " + values +
                                " FROM ext." + table + " x WHERE x.id = ?2");
  insert.bind(1, origin.instance);
  while (ids.step()) {
    int64_t old = ids.int64(0);
    insert.bind(2, old);
    insert.run();
    remember(replica, table, origin, old, replica.last_insert_rowid());
  }
}

void copy_table(Database& replica, const std::string& table, const std::vector<std::string>& cols,
                const std::map<std::string, std::string>& exprs, const RunOrigin& origin) {
  std::string names, values;
  for (const auto& c : cols) {
    names += (names.empty() ? "" : ", ") + quoted(c);
    auto e = exprs.find(c);
    values += (values.empty() ? "" : ", ") + (e != exprs.end() ? e->second : "x." + quoted(c));
  }
  auto st = replica.prepare("INSERT INTO main." + quoted(table) + "(" + names + ") SELECT " +
                            values + " FROM ext." + quoted(table) + " x");
  if (sqlite3_bind_parameter_count(st.handle()) >= 1) st.bind(1, origin.instance);
  st.run();
}

}  // namespace

const std::vector<std::string>& local_only_tables() {
  static const std::vector<std::string> tables = {
      "event_blocks", "graph_nodes", "graph_edges",       "graph_attrs",
      "tensors",      "comm_ops",    "kernel_launch_ops", "graph_op_matches"};
  return tables;
}

std::string extract_run(Database& db, int64_t run_id) {
  Attached attached(db, "run_extract");
  {
    // One read snapshot of the run (deferred: the store's write lock is not needed).
    db.exec("BEGIN");
    struct Rollback {
      Database& db;
      bool done = false;
      ~Rollback() {
        if (done) return;
        try {
          db.exec("ROLLBACK");
        } catch (const StoreError&) {
        }
      }
    } rollback{db};
    const auto tables = tables_of(db, "main");
    for (const auto& t : tables) {
      if (has(local_only_tables(), t) || t == "jobs" || t == "schema_version" || t == "run_counts")
        continue;
      auto cols = table_columns(db, t);
      auto where = rows_of_run(t, run_id, has(cols, "run_id"));
      if (where.empty()) continue;
      db.exec("CREATE TABLE run_extract." + quoted(t) + " AS SELECT * FROM main." + quoted(t) +
              " WHERE " + where);
    }
    // The counts of what stays behind (the report states them); a run without events of its own
    // (a cluster run assembled from its ranks) has them stored.
    const std::string n = std::to_string(run_id);
    std::string ops = "(SELECT count(*) FROM op_tasks WHERE run_id = " + n + ")";
    std::string kernels =
        "(SELECT count(*) FROM device_events WHERE run_id = " + n + " AND kind = 'kernel')";
    if (has(tables, "run_counts")) {
      ops = "coalesce((SELECT ops FROM main.run_counts WHERE run_id = " + n + "), " + ops + ")";
      kernels = "coalesce((SELECT kernels FROM main.run_counts WHERE run_id = " + n + "), " +
                kernels + ")";
    }
    db.exec("CREATE TABLE run_extract.run_counts AS SELECT " + n + " AS run_id, " + ops +
            " AS ops, " + kernels + " AS kernels");
    db.exec("CREATE TABLE run_extract.extract_info AS SELECT " +
            std::to_string(db.schema_version()) + " AS schema_version");
    db.exec("COMMIT");
    rollback.done = true;
  }
  sqlite3_int64 size = 0;
  unsigned char* bytes = sqlite3_serialize(db.handle(), "run_extract", &size, 0);
  if (!bytes)
    throw StoreError("run extract of run " + std::to_string(run_id) + ": cannot serialise");
  std::string out;
  try {
    out = compress_bytes(bytes, static_cast<size_t>(size));
  } catch (...) {
    sqlite3_free(bytes);
    throw;
  }
  sqlite3_free(bytes);
  return out;
}

void import_run(Database& replica, int64_t catalog_id, const RunOrigin& origin,
                const std::string& extract) {
  auto [buf, n] = decompress_bytes(extract);
  Attached attached(replica, "ext");
  // sqlite3_deserialize owns buf from here on, also when it fails. Writable: BEGIN IMMEDIATE
  // locks every attached database, and a copy in memory is ours to change.
  if (sqlite3_deserialize(replica.handle(), "ext", buf, static_cast<sqlite3_int64>(n),
                          static_cast<sqlite3_int64>(n),
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) !=
      SQLITE_OK)
    throw StoreError("run extract: not a database (" +
                     std::string(sqlite3_errmsg(replica.handle())) + ")");
  {
    auto check = replica.prepare("PRAGMA ext.quick_check");
    std::string verdict = check.step() ? check.text(0) : "no answer";
    if (verdict != "ok") throw StoreError("run extract: damaged (" + verdict + ")");
  }
  auto ext_tables = tables_of(replica, "ext");
  if (!has(ext_tables, "runs")) throw StoreError("run extract: it holds no run");
  // The run's row first: the other tables refer to it.
  std::stable_partition(ext_tables.begin(), ext_tables.end(),
                        [](const std::string& t) { return t == "runs"; });
  ensure_origins(replica);
  Transaction txn(replica);
  remove_run(replica, catalog_id);
  const std::string id = std::to_string(catalog_id);
  const std::string run_map = mapped("runs", "?1", "before_run", "0");
  for (const auto& t : ext_tables) {
    if (has(local_only_tables(), t) || kActionTables.count(t) || t == "jobs" ||
        t == "schema_version" || t == "extract_info")
      continue;
    auto mine = table_columns(replica, t);
    if (mine.empty()) continue;  // a table this daemon's schema does not have
    std::vector<std::string> common;
    for (const auto& c : table_columns(replica, t, "ext"))
      if (has(mine, c)) common.push_back(c);
    std::map<std::string, std::string> exprs;
    if (t == "runs") exprs["id"] = id;
    exprs["run_id"] = id;
    copy_table(replica, t, common, exprs, origin);
  }
  remember(replica, "runs", origin, origin.local_run_id, catalog_id);
  // Actions: plans and applies get the replica's own ids (each daemon's start at 1).
  auto common_cols = [&](const std::string& t) {
    std::vector<std::string> out;
    if (!has(ext_tables, t)) return out;
    auto mine = table_columns(replica, t);
    for (const auto& c : table_columns(replica, t, "ext"))
      if (has(mine, c)) out.push_back(c);
    return out;
  };
  const std::string plan = mapped("action_plans", "?1", "plan_id", "NULL");
  const std::string apply = mapped("action_applies", "?1", "apply_id", "-x.apply_id");
  if (auto cols = common_cols("action_plans"); !cols.empty())
    copy_with_new_ids(replica, "action_plans", origin, cols, {{"run_id", id}});
  if (auto cols = common_cols("action_applies"); !cols.empty())
    copy_with_new_ids(replica, "action_applies", origin, cols, {{"plan_id", plan}});
  if (auto cols = common_cols("action_audit"); !cols.empty())
    copy_with_new_ids(replica, "action_audit", origin, cols,
                      {{"plan_id", plan}, {"apply_id", apply}});
  if (auto cols = common_cols("action_files"); !cols.empty())
    copy_table(replica, "action_files", cols, {{"apply_id", apply}}, origin);
  // A verdict judges an apply of an earlier run; that run's extract came first.
  if (auto cols = common_cols("action_verdicts"); !cols.empty())
    copy_table(replica, "action_verdicts", cols,
               {{"after_run", id}, {"before_run", run_map}, {"apply_id", apply}}, origin);
  txn.commit();
}

std::optional<int64_t> imported_run(Database& replica, const RunOrigin& origin) {
  return imported_id(replica, "runs", origin.instance, origin.local_run_id);
}

std::optional<int64_t> imported_id(Database& replica, const std::string& kind,
                                   const std::string& instance, int64_t local_id) {
  ensure_origins(replica);
  auto st = replica.prepare(
      "SELECT id FROM main.catalog_origins WHERE kind = ?1 AND instance = ?2 AND local_id = ?3");
  st.bind(1, kind).bind(2, instance).bind(3, local_id);
  if (!st.step()) return std::nullopt;
  return st.int64(0);
}

std::optional<RunOrigin> origin_of_imported(Database& replica, const std::string& kind,
                                            int64_t id) {
  ensure_origins(replica);
  auto st = replica.prepare(
      "SELECT instance, local_id FROM main.catalog_origins WHERE kind = ?1 AND id = ?2");
  st.bind(1, kind).bind(2, id);
  if (!st.step()) return std::nullopt;
  return RunOrigin{st.text(0), st.int64(1)};
}

}  // namespace perfsage::store

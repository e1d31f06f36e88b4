#include "store/event_table.h"

#include <exception>
#include <memory>
#include <set>
#include <string>

#include "store/event_block.h"
#include "store/event_row_insert.h"

namespace perfsage::store {
namespace {

enum IndexBits : int { kByRun = 1, kByKind = 2, kByRowid = 4 };

struct EventTable {
  sqlite3_vtab base{};  // first member: SQLite casts between the two
  sqlite3* db = nullptr;
  const EventSchema* schema = nullptr;
  // Kind names handed to SQLite without a copy; they live as long as the connection's table.
  std::set<std::string, std::less<>> kinds;
};

struct EventCursor {
  sqlite3_vtab_cursor base{};
  EventTable* table = nullptr;
  sqlite3_stmt* blocks = nullptr;  // run_id, kind, data of the blocks to visit
  std::unique_ptr<EventBlockReader> block;
  int64_t run_id = 0;
  const std::string* kind = nullptr;
  int64_t block_rowid = 0;
  size_t row = 0;
  bool eof = true;
  // Rowid lookups read one row each; joins look up many rows of the same few blocks, so the
  // last block looked up is kept, with a copy of its bytes.
  bool single_row = false;
  std::string kept_data;
  std::unique_ptr<EventBlockReader> kept;
  int64_t kept_rowid = -1, kept_run_id = 0;
  const std::string* kept_kind = nullptr;
};

int fail(sqlite3_vtab* vtab, int code, const char* what) {
  sqlite3_free(vtab->zErrMsg);
  vtab->zErrMsg = sqlite3_mprintf("%s", what);
  return code;
}

std::string declaration(const EventSchema& s) {
  std::string sql = "CREATE TABLE x(";
  for (size_t i = 0; i < s.columns.size(); ++i) {
    if (i > 0) sql += ", ";
    sql += s.columns[i].name;
    sql += s.columns[i].type == ColumnType::kInt    ? " INTEGER"
           : s.columns[i].type == ColumnType::kReal ? " REAL"
                                                    : " TEXT";
  }
  return sql + ")";
}

int connect(sqlite3* db, void* aux, int, const char* const*, sqlite3_vtab** out, char** err) {
  auto* schema = static_cast<const EventSchema*>(aux);
  int rc = sqlite3_declare_vtab(db, declaration(*schema).c_str());
  if (rc != SQLITE_OK) {
    *err = sqlite3_mprintf("cannot declare %s", schema->table);
    return rc;
  }
  auto* t = new (std::nothrow) EventTable;
  if (t == nullptr) return SQLITE_NOMEM;
  t->db = db;
  t->schema = schema;
  *out = &t->base;
  return SQLITE_OK;
}

int disconnect(sqlite3_vtab* vtab) {
  delete reinterpret_cast<EventTable*>(vtab);
  return SQLITE_OK;
}

// run_id and kind equalities select blocks, a rowid equality one row; everything else SQLite
// checks row by row.
int best_index(sqlite3_vtab* vtab, sqlite3_index_info* info) {
  const EventSchema& schema = *reinterpret_cast<EventTable*>(vtab)->schema;
  // The keys, in xFilter's argument order; a table without a kind column never matches -2.
  struct Key {
    int column, bit, constraint;
  } keys[] = {{EventSchema::kRunIdColumn, kByRun, -1},
              {schema.kind_column < 0 ? -2 : schema.kind_column, kByKind, -1},
              {-1, kByRowid, -1}};
  for (int i = 0; i < info->nConstraint; ++i) {
    const auto& c = info->aConstraint[i];
    if (!c.usable || c.op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
    for (Key& k : keys)
      if (c.iColumn == k.column) k.constraint = i;
  }
  int bits = 0;
  int argv = 0;
  for (const Key& k : keys) {
    if (k.constraint < 0) continue;
    bits |= k.bit;
    auto& use = info->aConstraintUsage[k.constraint];
    use.argvIndex = ++argv;
    // An IN list arrives as one xFilter call per value; SQLite still checks it.
    use.omit = !sqlite3_vtab_in(info, k.constraint, -1);
  }
  info->idxNum = bits;
  // Shown by EXPLAIN QUERY PLAN, in the form SQLite uses for an index's constraints.
  static const char* const kPlans[] = {"",
                                       "(run_id=?)",
                                       "(kind=?)",
                                       "(run_id=? AND kind=?)",
                                       "(rowid=?)",
                                       "(run_id=? AND rowid=?)",
                                       "(kind=? AND rowid=?)",
                                       "(run_id=? AND kind=? AND rowid=?)"};
  info->idxStr = const_cast<char*>(kPlans[bits]);
  info->needToFreeIdxStr = 0;
  double rows = 1e7;
  if (bits & kByRun) rows /= 100;
  if (bits & kByKind) rows /= 10;
  if (bits & kByRowid) {
    rows = 1;
    info->idxFlags = SQLITE_INDEX_SCAN_UNIQUE;
  }
  info->estimatedRows = static_cast<sqlite3_int64>(rows);
  info->estimatedCost = rows;
  return SQLITE_OK;
}

int open_cursor(sqlite3_vtab* vtab, sqlite3_vtab_cursor** out) {
  auto* c = new (std::nothrow) EventCursor;
  if (c == nullptr) return SQLITE_NOMEM;
  c->table = reinterpret_cast<EventTable*>(vtab);
  *out = &c->base;
  return SQLITE_OK;
}

int close_cursor(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<EventCursor*>(cur);
  c->block.reset();
  c->kept.reset();
  sqlite3_finalize(c->blocks);
  delete c;
  return SQLITE_OK;
}

const std::string* kind_name(EventTable* t, sqlite3_stmt* st, int col) {
  std::string_view kind(reinterpret_cast<const char*>(sqlite3_column_text(st, col)),
                        static_cast<size_t>(sqlite3_column_bytes(st, col)));
  auto it = t->kinds.find(kind);
  if (it == t->kinds.end()) it = t->kinds.emplace(kind).first;
  return &*it;
}

// Moves to the next non-empty block, or to the end.
int next_block(EventCursor* c) {
  c->block.reset();
  for (;;) {
    int rc = sqlite3_step(c->blocks);
    if (rc == SQLITE_DONE) {
      c->eof = true;
      return SQLITE_OK;
    }
    if (rc != SQLITE_ROW) return fail(&c->table->base, rc, sqlite3_errmsg(c->table->db));
    c->run_id = sqlite3_column_int64(c->blocks, 0);
    c->kind = kind_name(c->table, c->blocks, 1);
    const auto* data = static_cast<const uint8_t*>(sqlite3_column_blob(c->blocks, 2));
    auto size = static_cast<size_t>(sqlite3_column_bytes(c->blocks, 2));
    c->block = std::make_unique<EventBlockReader>(*c->table->schema, data, size);
    c->block_rowid = sqlite3_column_int64(c->blocks, 3);
    c->row = 0;
    if (c->block->rows() > 0) return SQLITE_OK;
  }
}

// Positions the cursor on the one row `rowid` names, or at the end when there is none.
int seek_row(EventCursor* c, int64_t rowid) {
  c->single_row = true;
  c->eof = true;
  int64_t block = rowid >> kRowBits;
  auto row = static_cast<size_t>(rowid & ((int64_t{1} << kRowBits) - 1));
  if (!c->kept || block != c->kept_rowid) {
    c->kept.reset();
    c->kept_rowid = -1;
    sqlite3_stmt* st = nullptr;
    int rc = sqlite3_prepare_v2(c->table->db,
                                "SELECT run_id, kind, data FROM event_blocks "
                                "WHERE rowid = ?1 AND side = ?2",
                                -1, &st, nullptr);
    if (rc != SQLITE_OK) return fail(&c->table->base, rc, sqlite3_errmsg(c->table->db));
    std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> owned(st, sqlite3_finalize);
    sqlite3_bind_int64(st, 1, block);
    sqlite3_bind_text(st, 2, c->table->schema->table, -1, SQLITE_STATIC);
    rc = sqlite3_step(st);
    if (rc == SQLITE_DONE) return SQLITE_OK;
    if (rc != SQLITE_ROW) return fail(&c->table->base, rc, sqlite3_errmsg(c->table->db));
    c->kept_run_id = sqlite3_column_int64(st, 0);
    c->kept_kind = kind_name(c->table, st, 1);
    c->kept_data.assign(static_cast<const char*>(sqlite3_column_blob(st, 2)),
                        static_cast<size_t>(sqlite3_column_bytes(st, 2)));
    c->kept = std::make_unique<EventBlockReader>(
        *c->table->schema, reinterpret_cast<const uint8_t*>(c->kept_data.data()),
        c->kept_data.size());
    c->kept_rowid = block;
  }
  if (row >= c->kept->rows()) return SQLITE_OK;
  c->run_id = c->kept_run_id;
  c->kind = c->kept_kind;
  c->block_rowid = block;
  c->row = row;
  c->eof = false;
  return SQLITE_OK;
}

int filter(sqlite3_vtab_cursor* cur, int bits, const char*, int argc, sqlite3_value** argv) {
  auto* c = reinterpret_cast<EventCursor*>(cur);
  try {
    sqlite3_finalize(c->blocks);
    c->blocks = nullptr;
    c->block.reset();
    c->single_row = false;
    if (bits & kByRowid) {
      // The rowid is the last argument. run_id and kind equalities beside it were omitted
      // from SQLite's own checks, so the row found must match them here.
      c->eof = true;
      if (argc < 1 || sqlite3_value_numeric_type(argv[argc - 1]) != SQLITE_INTEGER)
        return SQLITE_OK;
      int rc = seek_row(c, sqlite3_value_int64(argv[argc - 1]));
      if (rc != SQLITE_OK || c->eof) return rc;
      int arg = 0;
      if ((bits & kByRun) && arg < argc - 1) {
        sqlite3_value* v = argv[arg++];
        if (sqlite3_value_numeric_type(v) != SQLITE_INTEGER || sqlite3_value_int64(v) != c->run_id)
          c->eof = true;
      }
      if ((bits & kByKind) && arg < argc - 1) {
        sqlite3_value* v = argv[arg++];
        const auto* text = reinterpret_cast<const char*>(sqlite3_value_text(v));
        if (text == nullptr || *c->kind != text) c->eof = true;
      }
      return SQLITE_OK;
    }
    std::string sql = "SELECT run_id, kind, data, rowid FROM event_blocks WHERE side = ?1";
    if (bits & kByRun) sql += " AND run_id = ?2";
    if (bits & kByKind) sql += " AND kind = ?3";
    sql += " ORDER BY run_id, kind, seq";
    int rc = sqlite3_prepare_v2(c->table->db, sql.c_str(), -1, &c->blocks, nullptr);
    if (rc != SQLITE_OK) return fail(cur->pVtab, rc, sqlite3_errmsg(c->table->db));
    sqlite3_bind_text(c->blocks, 1, c->table->schema->table, -1, SQLITE_STATIC);
    int arg = 0;
    if ((bits & kByRun) && arg < argc) sqlite3_bind_value(c->blocks, 2, argv[arg++]);
    if ((bits & kByKind) && arg < argc) sqlite3_bind_value(c->blocks, 3, argv[arg++]);
    c->eof = false;
    return next_block(c);
  } catch (const std::exception& e) {
    return fail(cur->pVtab, SQLITE_CORRUPT, e.what());
  }
}

int next(sqlite3_vtab_cursor* cur) {
  auto* c = reinterpret_cast<EventCursor*>(cur);
  try {
    if (c->single_row) {
      c->eof = true;
      return SQLITE_OK;
    }
    if (++c->row < c->block->rows()) return SQLITE_OK;
    return next_block(c);
  } catch (const std::exception& e) {
    return fail(cur->pVtab, SQLITE_CORRUPT, e.what());
  }
}

int eof(sqlite3_vtab_cursor* cur) {
  return reinterpret_cast<EventCursor*>(cur)->eof ? 1 : 0;
}

int column(sqlite3_vtab_cursor* cur, sqlite3_context* ctx, int col) {
  auto* c = reinterpret_cast<EventCursor*>(cur);
  try {
    const EventSchema& schema = *c->table->schema;
    if (col == EventSchema::kRunIdColumn) {
      sqlite3_result_int64(ctx, c->run_id);
      return SQLITE_OK;
    }
    if (col == schema.kind_column) {
      sqlite3_result_text(ctx, c->kind->data(), static_cast<int>(c->kind->size()), SQLITE_STATIC);
      return SQLITE_OK;
    }
    EventBlockReader& b = c->single_row ? *c->kept : *c->block;
    if (b.is_null(col, c->row)) return SQLITE_OK;  // the result defaults to NULL
    switch (schema.columns[static_cast<size_t>(col)].type) {
      case ColumnType::kInt:
        sqlite3_result_int64(ctx, b.int_at(col, c->row));
        break;
      case ColumnType::kReal:
        sqlite3_result_double(ctx, b.real_at(col, c->row));
        break;
      case ColumnType::kText: {
        // Copied: SQLite may keep a value (an aggregate's, a sorter's) past this block.
        std::string_view s = b.text_at(col, c->row);
        sqlite3_result_text(ctx, s.data(), static_cast<int>(s.size()), SQLITE_TRANSIENT);
        break;
      }
    }
    return SQLITE_OK;
  } catch (const std::exception& e) {
    sqlite3_result_error(ctx, e.what(), -1);
    return SQLITE_CORRUPT;
  }
}

int rowid(sqlite3_vtab_cursor* cur, sqlite3_int64* out) {
  auto* c = reinterpret_cast<EventCursor*>(cur);
  *out = (c->block_rowid << kRowBits) | static_cast<int64_t>(c->row);
  return SQLITE_OK;
}

// INSERT only: a row is stored as a block of one (event_row_insert.h). Rows leave the store
// with their run; updating or deleting single rows is refused.
int update(sqlite3_vtab* vtab, int argc, sqlite3_value** argv, sqlite3_int64* rowid) {
  auto* t = reinterpret_cast<EventTable*>(vtab);
  if (argc == 1 || sqlite3_value_type(argv[0]) != SQLITE_NULL) {
    return fail(vtab, SQLITE_READONLY,
                (std::string(t->schema->table) +
                 " rows cannot be updated or deleted; delete the run instead")
                    .c_str());
  }
  if (sqlite3_value_type(argv[1]) != SQLITE_NULL)
    return fail(vtab, SQLITE_MISMATCH, "the rowid of a new row is chosen by the store");
  try {
    std::string error;
    int64_t id = 0;
    int rc = insert_event_row(t->db, *t->schema, argv + 2, id, error);
    if (rc != SQLITE_OK) return fail(vtab, rc, error.c_str());
    *rowid = id;
    return SQLITE_OK;
  } catch (const std::exception& e) {
    return fail(vtab, SQLITE_ERROR, e.what());
  }
}

sqlite3_module make_module() {
  sqlite3_module m{};
  m.iVersion = 0;
  m.xCreate = nullptr;  // eponymous only: the table exists on every connection, never in the schema
  m.xConnect = connect;
  m.xBestIndex = best_index;
  m.xDisconnect = disconnect;
  m.xDestroy = disconnect;
  m.xOpen = open_cursor;
  m.xClose = close_cursor;
  m.xFilter = filter;
  m.xNext = next;
  m.xEof = eof;
  m.xColumn = column;
  m.xRowid = rowid;
  m.xUpdate = update;
  return m;
}

const sqlite3_module kModule = make_module();

}  // namespace

int register_event_tables(sqlite3* db) {
  for (const EventSchema* s : block_schemas()) {
    int rc = sqlite3_create_module(db, s->table, &kModule, const_cast<EventSchema*>(s));
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

}  // namespace perfsage::store

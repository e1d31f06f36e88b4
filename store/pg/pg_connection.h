// RAII over libpq: one connection to PostgreSQL, results, parameters as text, transactions and
// notifications. The shared mode's queue and catalog (docs/scale-out.md) are built on this.
// Errors are PgError (a StoreError) naming what failed; the connection URI's password is never
// part of a message.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "store/database.h"

struct pg_conn;
struct pg_result;

namespace perfsage::store::pg {

class PgError : public StoreError {
 public:
  using StoreError::StoreError;
};

// A statement's rows, cells as text (NULL distinguished).
class Result {
 public:
  explicit Result(pg_result* r) : r_(r) {}
  ~Result();
  Result(Result&& o) noexcept : r_(o.r_) { o.r_ = nullptr; }
  Result& operator=(Result&&) = delete;
  Result(const Result&) = delete;

  int rows() const;
  bool is_null(int row, int col) const;
  std::string text(int row, int col) const;
  int64_t int64(int row, int col) const;
  // Rows an UPDATE, INSERT or DELETE touched.
  int64_t affected() const;

 private:
  friend class Connection;
  pg_result* r_;
};

// A parameter: text, or NULL.
using Param = std::optional<std::string>;
inline Param param(std::string_view v) {
  return std::string(v);
}
inline Param param(int64_t v) {
  return std::to_string(v);
}

class Connection {
 public:
  // Throws PgError when it cannot connect (the message names host and database, not the
  // password).
  explicit Connection(const std::string& uri);
  ~Connection();
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  // Runs one statement with $1.. parameters. A broken connection is re-established once (a
  // restarted server) before the statement is retried; inside a transaction it is not.
  Result exec(std::string_view sql, const std::vector<Param>& params = {});
  // Runs several statements with no parameters (a migration step).
  void exec_script(const std::string& sql);
  // The URI without its password, for messages.
  const std::string& where() const { return where_; }
  bool in_transaction() const { return depth_ > 0; }

  // LISTEN on a channel; then wait() returns true when a notification arrived within the
  // timeout (false on timeout), consuming every notification that is pending.
  void listen(std::string_view channel);
  bool wait(std::chrono::milliseconds timeout);

 private:
  friend class Transaction;
  void reconnect();
  pg_conn* conn_ = nullptr;
  std::string uri_, where_;
  std::vector<std::string> channels_;
  int depth_ = 0;
};

// BEGIN ... COMMIT; rolled back unless commit() was called.
class Transaction {
 public:
  explicit Transaction(Connection& c);
  ~Transaction();
  void commit();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Connection& c_;
  bool done_ = false;
};

// The URI with any password replaced by "***" (user:pw@host and password=... forms).
std::string redact_uri(const std::string& uri);

}  // namespace perfsage::store::pg

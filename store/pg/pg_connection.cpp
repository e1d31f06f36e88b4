#include "store/pg/pg_connection.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cstdlib>
#include <regex>

namespace perfsage::store::pg {

Result::~Result() {
  if (r_) PQclear(r_);
}

int Result::rows() const {
  return PQntuples(r_);
}

bool Result::is_null(int row, int col) const {
  return PQgetisnull(r_, row, col) != 0;
}

std::string Result::text(int row, int col) const {
  return is_null(row, col) ? std::string() : std::string(PQgetvalue(r_, row, col));
}

int64_t Result::int64(int row, int col) const {
  return is_null(row, col) ? 0 : std::strtoll(PQgetvalue(r_, row, col), nullptr, 10);
}

int64_t Result::affected() const {
  const char* n = PQcmdTuples(r_);
  return n && *n ? std::strtoll(n, nullptr, 10) : 0;
}

std::string redact_uri(const std::string& uri) {
  // postgresql://user:secret@host/db, ...?password=secret&..., and key=value strings.
  static const std::regex url(R"(^([a-z]+://[^:/@]*):[^@/]*@)");
  static const std::regex query(R"(([?&]password=)[^&]*)");
  static const std::regex kv(R"((^|\s)(password\s*=\s*)('[^']*'|\S+))");
  std::string out = std::regex_replace(uri, url, "$1:***@");
  out = std::regex_replace(out, query, "$1***");
  return std::regex_replace(out, kv, "$1$2***");
}

Connection::Connection(const std::string& uri) : uri_(uri), where_(redact_uri(uri)) {
  reconnect();
}

Connection::~Connection() {
  if (conn_) PQfinish(conn_);
}

void Connection::reconnect() {
  if (conn_) PQfinish(conn_);
  conn_ = PQconnectdb(uri_.c_str());
  if (PQstatus(conn_) != CONNECTION_OK) {
    std::string why = PQerrorMessage(conn_);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    PQfinish(conn_);
    conn_ = nullptr;
    throw PgError("PostgreSQL " + where_ + ": cannot connect: " + why);
  }
  // Notices (e.g. "relation already exists, skipping") are not errors; keep them off stderr.
  PQsetNoticeProcessor(
      conn_, [](void*, const char*) {}, nullptr);
  for (const auto& ch : channels_) {
    PGresult* r = PQexec(conn_, ("LISTEN " + ch).c_str());
    PQclear(r);
  }
}

Result Connection::exec(std::string_view sql, const std::vector<Param>& params) {
  for (int attempt = 0;; ++attempt) {
    if (!conn_) reconnect();
    std::vector<const char*> values;
    values.reserve(params.size());
    for (const auto& p : params) values.push_back(p ? p->c_str() : nullptr);
    std::string text(sql);
    Result r(PQexecParams(conn_, text.c_str(), static_cast<int>(values.size()), nullptr,
                          values.data(), nullptr, nullptr, 0));
    auto status = PQresultStatus(r.r_);
    if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return r;
    // A server that restarted (or a dropped connection) answers with a bad connection: once,
    // outside a transaction, connect again and retry the statement.
    if (PQstatus(conn_) == CONNECTION_BAD && depth_ == 0 && attempt == 0) {
      reconnect();  // throws PgError when the server is still away
      continue;
    }
    std::string why = PQerrorMessage(conn_);
    while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
    if (PQstatus(conn_) == CONNECTION_BAD) {
      PQfinish(conn_);
      conn_ = nullptr;
    }
    throw PgError("PostgreSQL " + where_ + ": " + why);
  }
}

void Connection::exec_script(const std::string& sql) {
  if (!conn_) reconnect();
  Result r(PQexec(conn_, sql.c_str()));
  auto status = PQresultStatus(r.r_);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return;
  std::string why = PQerrorMessage(conn_);
  while (!why.empty() && (why.back() == '\n' || why.back() == ' ')) why.pop_back();
  throw PgError("PostgreSQL " + where_ + ": " + why);
}

void Connection::listen(std::string_view channel) {
  channels_.emplace_back(channel);
  exec("LISTEN " + std::string(channel));
}

bool Connection::wait(std::chrono::milliseconds timeout) {
  if (!conn_) reconnect();
  auto drain = [&] {
    bool any = false;
    PQconsumeInput(conn_);
    while (PGnotify* n = PQnotifies(conn_)) {
      any = true;
      PQfreemem(n);
    }
    return any;
  };
  if (drain()) return true;
  pollfd fd{PQsocket(conn_), POLLIN, 0};
  if (fd.fd < 0) return false;
  int rc = ::poll(&fd, 1, static_cast<int>(timeout.count()));
  if (rc <= 0) return false;
  if (PQconsumeInput(conn_) == 0) {  // the server went away: the caller polls again later
    PQfinish(conn_);
    conn_ = nullptr;
    return false;
  }
  return drain();
}

Transaction::Transaction(Connection& c) : c_(c) {
  c_.exec("BEGIN");
  ++c_.depth_;
}

Transaction::~Transaction() {
  if (done_) return;
  --c_.depth_;
  try {
    if (c_.conn_) c_.exec("ROLLBACK");
  } catch (const PgError&) {
    // The connection is gone: the server rolled the transaction back itself.
  }
}

void Transaction::commit() {
  --c_.depth_;
  done_ = true;
  c_.exec("COMMIT");
}

}  // namespace perfsage::store::pg

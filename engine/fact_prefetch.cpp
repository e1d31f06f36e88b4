#include "engine/fact_prefetch.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <thread>

namespace perfsage::engine {
namespace {

FactResult run_query(store::Database& db, int64_t run_id, const facts::FactType& type) {
  FactResult r;
  auto start = std::chrono::steady_clock::now();
  try {
    r.facts = facts::query_facts(db, run_id, type);
  } catch (...) {
    r.error = std::current_exception();
  }
  r.ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return r;
}

}  // namespace

std::map<std::string, FactResult> prefetch_facts(store::Database& db, int64_t run_id,
                                                 const std::vector<const facts::FactType*>& types,
                                                 unsigned threads) {
  auto start = std::chrono::steady_clock::now();
  std::vector<FactResult> results(types.size());
  std::atomic<size_t> next{0};
  auto work = [&](store::Database& conn) {
    for (size_t i; (i = next.fetch_add(1)) < types.size();)
      results[i] = run_query(conn, run_id, *types[i]);
  };
  std::vector<std::thread> workers;
  if (threads > 1 && types.size() > 1 && db.path() != ":memory:" && !db.path().empty()) {
    for (unsigned t = 1; t < threads && t < types.size(); ++t) {
      workers.emplace_back([&] {
        std::unique_ptr<store::Database> reader;
        try {
          reader = store::Database::open_reader(db.path());
        } catch (const std::exception& e) {
          // Without a second connection the caller's thread does all the queries.
          spdlog::debug("fact prefetch: no reader connection: {}", e.what());
          return;
        }
        work(*reader);
      });
    }
  }
  work(db);
  for (auto& w : workers) w.join();
  spdlog::debug(
      "fact prefetch: {} types in {:.1f} ms on {} connection(s)", types.size(),
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count(),
      workers.size() + 1);
  std::map<std::string, FactResult> out;
  for (size_t i = 0; i < types.size(); ++i) {
    spdlog::debug("facts {}: {} in {:.1f} ms", types[i]->name, results[i].facts.size(),
                  results[i].ms);
    out.emplace(types[i]->name, std::move(results[i]));
  }
  return out;
}

}  // namespace perfsage::engine

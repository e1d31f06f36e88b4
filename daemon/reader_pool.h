// Read-only store connections for the HTTP threads, reused across requests (WAL lets them read
// while a worker writes).
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "app/store_types.h"

namespace perfsage::daemon {

class ReaderPool {
 public:
  explicit ReaderPool(std::string path) : path_(std::move(path)) {}

  class Lease {
   public:
    Lease(ReaderPool& pool, std::unique_ptr<app::Database> db) : pool_(pool), db_(std::move(db)) {}
    ~Lease() { pool_.give_back(std::move(db_)); }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    app::Database& db() { return *db_; }

   private:
    ReaderPool& pool_;
    std::unique_ptr<app::Database> db_;
  };

  // Throws app::StoreError when the store cannot be opened.
  Lease acquire() {
    {
      std::lock_guard lock(mu_);
      if (!idle_.empty()) {
        auto db = std::move(idle_.back());
        idle_.pop_back();
        return Lease(*this, std::move(db));
      }
    }
    return Lease(*this, app::Database::open_reader(path_));
  }

 private:
  void give_back(std::unique_ptr<app::Database> db) {
    if (!db) return;
    std::lock_guard lock(mu_);
    if (idle_.size() < 8) idle_.push_back(std::move(db));
  }
  std::string path_;
  std::mutex mu_;
  std::vector<std::unique_ptr<app::Database>> idle_;
};

}  // namespace perfsage::daemon

// A store SQLite's quick_check finds damaged while perfsage can still read its runs: an index
// nothing of perfsage reads gets a page that is no b-tree page.
#pragma once

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "store/database.h"

namespace perfsage::test {

inline void damage_unused_index(const std::string& store) {
  int64_t page = 0, root = 0;
  {
    perfsage::store::Database db(store);
    db.exec(
        "CREATE TABLE scratch(x); CREATE INDEX scratch_x ON scratch(x);"
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) "
        "INSERT INTO scratch SELECT printf('%040d', i) FROM n");
    auto p = db.prepare("PRAGMA page_size");
    REQUIRE(p.step());
    page = p.int64(0);
    auto r = db.prepare("SELECT rootpage FROM sqlite_schema WHERE name = 'scratch_x'");
    REQUIRE(r.step());
    root = r.int64(0);
  }  // the last connection copies the log into the file
  REQUIRE_FALSE(std::filesystem::exists(store + "-wal"));
  std::fstream f(store, std::ios::in | std::ios::out | std::ios::binary);
  f.seekp((root - 1) * page);
  f.put('\x77');  // no b-tree page type
}

}  // namespace perfsage::test

// Pack test fixtures: a store built from a file inside the pack folder, confined the way
// untrusted input must be (see kMaxFixtureSqlBytes in pack_tests.h).
#pragma once

#include <filesystem>
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/kb/pack.h"
#include "engine/kb/pack_tests.h"
#include "store/database.h"

namespace perfsage::engine {

struct FixtureError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// `name` is the test case's fixture entry, relative to the tests file `test_file`. Returns a
// store holding the fixture as run 1, analysed. Throws FixtureError saying what was refused.
std::unique_ptr<store::Database> load_fixture(const Pack& pack,
                                              const std::filesystem::path& test_file,
                                              const std::string& name,
                                              const PackTestOptions& options);

}  // namespace perfsage::engine

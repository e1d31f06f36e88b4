// Paths and helpers shared by the tests.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace perfsage::test {

// How often `what` occurs in `text` (overlapping occurrences counted).
inline size_t count_in(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

inline std::filesystem::path source_dir() {
  return PERFSAGE_SOURCE_DIR;
}
// ../shared/samples as configured; the environment's PERFSAGE_SAMPLES_DIR overrides it (to run
// a suite against another copy, or to see that cases without samples are reported skipped).
inline std::filesystem::path samples_dir() {
  if (const char* env = std::getenv("PERFSAGE_SAMPLES_DIR"); env && *env) return env;
  return PERFSAGE_SAMPLES_DIR;
}
inline bool have_samples() {
  return std::filesystem::exists(samples_dir() / "README.md");
}

// ctest's SKIP_RETURN_CODE for the test programs (tests/CMakeLists.txt).
constexpr int kSkipReturnCode = 77;

// Test cases that could not run in this process (tests/test_main.cpp reports them to ctest).
inline int& skipped_counter() {
  static int n = 0;
  return n;
}
inline int skipped_cases() {
  return skipped_counter();
}
inline void note_skipped() {
  ++skipped_counter();
}

// Where ../shared must be present (CI checks out shared/ beside the project), a case that
// needs it fails instead of skipping.
inline bool samples_required() {
  const char* ci = std::getenv("CI");
  const char* required = std::getenv("PERFSAGE_REQUIRE_SHARED");
  return (ci && std::string(ci) == "true") || (required && std::string(required) == "1");
}

// Skips the current test case when ../shared/samples is absent: the program then exits with
// kSkipReturnCode and ctest reports it skipped. In CI it fails the case instead.
#define PERFSAGE_REQUIRE_SAMPLES()                                                        \
  do {                                                                                    \
    if (!perfsage::test::have_samples()) {                                                \
      if (perfsage::test::samples_required())                                             \
        FAIL("../shared/samples not found at " << perfsage::test::samples_dir()            \
                                               << " (required: CI or PERFSAGE_REQUIRE_SHARED=1)"); \
      WARN("skipped: ../shared/samples not found at " << perfsage::test::samples_dir());  \
      perfsage::test::note_skipped();                                                     \
      return;                                                                             \
    }                                                                                     \
  } while (0)

// A fresh temporary directory removed when the object goes out of scope.
class TempDir {
 public:
  TempDir() {
    auto base = std::filesystem::temp_directory_path();
    for (int i = 0;; ++i) {
      path_ = base / ("perfsage-test-" + std::to_string(::getpid()) + "-" + std::to_string(i) +
                      "-" + std::to_string(counter()++));
      if (std::filesystem::create_directory(path_)) break;
    }
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path write(const std::string& name, const std::string& content) const {
    auto p = path_ / name;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << content;
    return p;
  }

 private:
  static int& counter() {
    static int c = 0;
    return c;
  }
  std::filesystem::path path_;
};

}  // namespace perfsage::test

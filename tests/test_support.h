// Paths and helpers shared by the tests.
#pragma once

#include <unistd.h>

#include <catch2/catch.hpp>
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
inline std::filesystem::path samples_dir() {
  return PERFSAGE_SAMPLES_DIR;
}
inline bool have_samples() {
  return std::filesystem::exists(samples_dir() / "README.md");
}

// Skips the current test case with a message when ../shared/samples is absent.
#define PERFSAGE_REQUIRE_SAMPLES()                                              \
  do {                                                                          \
    if (!perfsage::test::have_samples()) {                                      \
      WARN("skipped: ../shared/samples not found at " << PERFSAGE_SAMPLES_DIR); \
      return;                                                                   \
    }                                                                           \
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

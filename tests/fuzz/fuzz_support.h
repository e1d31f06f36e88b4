// Shared by the libFuzzer targets: the fuzzer's bytes become a file of a chosen name (collectors
// detect formats by name and content) and are ingested into an in-memory store. A ParseError
// is the expected answer to bad input; any other exception, a signal or a sanitizer report is a
// finding.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "collectors/common/collector.h"
#include "collectors/ingest.h"
#include "store/database.h"
#include "store/run_writer.h"

namespace perfsage::fuzz {

// A folder of this process's own, removed at exit.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    std::string tmpl = (std::filesystem::temp_directory_path() / "perfsage-fuzz-XXXXXX").string();
    if (!::mkdtemp(tmpl.data())) std::abort();
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(scratch_dir(), ec);
    });
    return std::filesystem::path(tmpl);
  }();
  return dir;
}

inline std::filesystem::path write_input(std::string_view name, std::string_view bytes) {
  auto path = scratch_dir() / name;
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return path;
}

// Ingests `bytes` as a file called `name` in `mode`. The run is rolled back afterwards, so one
// store serves every execution.
inline void ingest_as(std::string_view name, std::string_view bytes, collectors::Mode mode) {
  static store::Database db(":memory:");
  auto path = write_input(name, bytes);
  try {
    store::RunWriter writer(db, {"fuzz", {path.string()}, "fp", "2026-01-01T00:00:00Z"});
    collectors::ingest(collectors::expand_inputs({path}), writer, mode);
    writer.flush_events();
  } catch (const collectors::ParseError&) {
    // bad input, said so
  }
}

// The first byte of a fuzzer input chooses among `n` variants (file name, mode); the rest is
// the file.
struct Split {
  unsigned choice = 0;
  std::string_view rest;
};
inline Split split(const uint8_t* data, size_t size) {
  if (size == 0) return {};
  return {data[0], std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1)};
}

}  // namespace perfsage::fuzz

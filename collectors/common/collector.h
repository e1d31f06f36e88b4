// The collector interface: recognise a file's format, stream its records into a run.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "store/records.h"
#include "store/run_writer.h"

namespace perfsage::collectors {

enum class Mode { strict, lenient };

// A malformed input. The message names the file and the line, event index or byte offset,
// and what was expected there.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// What the ingest learned about the run as a whole (filled by collectors, refined by analyzers).
struct RunHints {
  std::string framework;  // pytorch, pytorch-npu, mindspore, msprof, onnx, ge
  std::string device;     // ascend, cuda, rocm, cpu
  std::string chip;       // e.g. "Ascend910B1", "NVIDIA A100-PG509-200"
};

// Per-file state handed to a collector.
class CollectContext {
 public:
  CollectContext(store::RunWriter& out, Mode mode, std::string path, RunHints& hints)
      : out_(out), mode_(mode), path_(std::move(path)), hints_(hints) {}

  store::RunWriter& out() { return out_; }
  Mode mode() const { return mode_; }
  const std::string& path() const { return path_; }
  RunHints& hints() { return hints_; }

  // Counts one stored record.
  void record() { ++records_; }
  // A record that could not be used. In strict mode this throws ParseError with `where`
  // (e.g. "line 12") and the reason; in lenient mode it is counted per reason.
  void skip(std::string_view reason, std::string_view where);
  // Something worth telling the user that is not a skipped record.
  void warn(std::string message) { warnings_.push_back(std::move(message)); }
  [[noreturn]] void fail(std::string_view where, std::string_view what) const;

  // The counts and messages so far, to return to when a speculative read is redone.
  struct Snapshot;
  Snapshot snapshot() const;
  void restore(const Snapshot& s);

  int64_t records() const { return records_; }
  int64_t skipped() const { return skipped_; }
  // Warnings plus one line per skip reason with its count and first location.
  std::vector<std::string> report_lines() const;

 private:
  store::RunWriter& out_;
  Mode mode_;
  std::string path_;
  RunHints& hints_;
  int64_t records_ = 0, skipped_ = 0;
  struct SkipCount {
    int64_t count = 0;
    std::string first_where;
  };
  std::map<std::string, SkipCount, std::less<>> skips_;
  std::vector<std::string> warnings_;

 public:
  struct Snapshot {
    int64_t records = 0, skipped = 0;
    std::map<std::string, SkipCount, std::less<>> skips;
    std::vector<std::string> warnings;
  };
};

inline CollectContext::Snapshot CollectContext::snapshot() const {
  return {records_, skipped_, skips_, warnings_};
}

inline void CollectContext::restore(const Snapshot& s) {
  records_ = s.records;
  skipped_ = s.skipped;
  skips_ = s.skips;
  warnings_ = s.warnings;
}

// The first bytes of a file (inflated when gzip) and its name, for format detection.
struct FileProbe {
  std::filesystem::path path;
  std::string head;  // up to 64 KiB of (decompressed) content
  bool gzip = false;
};

class Collector {
 public:
  virtual ~Collector() = default;
  virtual std::string name() const = 0;
  // 0 = not this format; higher = more certain. Detection by name and content.
  virtual int detect(const FileProbe& probe) const = 0;
  // Reads the file into ctx.out(). Throws ParseError on input it cannot accept.
  virtual void collect(const FileProbe& probe, CollectContext& ctx) const = 0;
};

// Every collector perfsage knows, in detection order.
const std::vector<std::unique_ptr<Collector>>& all_collectors();

}  // namespace perfsage::collectors

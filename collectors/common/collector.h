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

#include "store/file_bytes.h"
#include "store/records.h"
#include "store/run_writer.h"

namespace perfsage::collectors {

enum class Mode { strict, lenient };

// A malformed input. The message names the file and the line, event index or byte offset,
// and what was expected there. An input that cannot be read at all (missing, corrupt gzip) is
// its base, store::InputError, thrown by the file reading both collectors and actions use.
class ParseError : public store::InputError {
 public:
  using store::InputError::InputError;
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
  void record(int64_t n = 1) { tally_.records += n; }
  // A record that could not be used. In strict mode this throws ParseError with `where`
  // (e.g. "line 12") and the reason; in lenient mode it is counted per reason.
  void skip(std::string_view reason, std::string_view where);
  // Something worth telling the user that is not a skipped record.
  void warn(std::string message) { tally_.warnings.push_back(std::move(message)); }
  [[noreturn]] void fail(std::string_view where, std::string_view what) const;

  // What the file has produced so far: counts, skip reasons, warnings. A speculative read
  // takes a copy and puts it back when it has to start over.
  struct Tally {
    struct SkipCount {
      int64_t count = 0;
      std::string first_where;
    };
    int64_t records = 0, skipped = 0;
    std::map<std::string, SkipCount, std::less<>> skips;
    std::vector<std::string> warnings;
  };
  const Tally& tally() const { return tally_; }
  void restore(Tally t) { tally_ = std::move(t); }

  int64_t records() const { return tally_.records; }
  int64_t skipped() const { return tally_.skipped; }
  // Warnings plus one line per skip reason with its count and first location.
  std::vector<std::string> report_lines() const;

 private:
  store::RunWriter& out_;
  Mode mode_;
  std::string path_;
  RunHints& hints_;
  Tally tally_;
};

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

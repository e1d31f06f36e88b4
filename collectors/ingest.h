// Ingest orchestration: expand input paths, detect each file's format, run its collector.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "collectors/common/collector.h"
#include "store/records.h"
#include "store/run_writer.h"

namespace perfsage::collectors {

struct InputFile {
  std::filesystem::path path;
  bool named = false;  // named on the command line (not found by walking a directory)
  // Set for files found in a directory that profilers write but no collector reads (msprof's
  // raw binary data, .done markers): counted in one summary line instead of probed one by one.
  std::string skip_reason;
};

// Files named directly plus every regular file under named directories, in sorted order.
// Throws ParseError when a named path does not exist.
std::vector<InputFile> expand_inputs(const std::vector<std::filesystem::path>& inputs);

// Identifies an input set by path, size and modification time of every file.
std::string fingerprint_inputs(const std::vector<InputFile>& files);

struct IngestResult {
  std::vector<store::IngestFile> files;  // one per file, unrecognised ones included
  RunHints hints;
};

// Picks the collector for a file; nullptr when no collector recognises it.
const Collector* detect_collector(const FileProbe& probe);
FileProbe probe_file(const std::filesystem::path& path);

// The share of the input bytes read so far (0..1), reported after each file.
using IngestProgress = std::function<void(double fraction)>;

// Collects every file into `out`. A named file that no collector recognises, or any file that
// fails to parse (in strict mode, or with nothing usable in lenient mode), throws ParseError:
// the caller's RunWriter then rolls the whole ingest back.
IngestResult ingest(const std::vector<InputFile>& files, store::RunWriter& out, Mode mode,
                    const IngestProgress& progress = {});

}  // namespace perfsage::collectors

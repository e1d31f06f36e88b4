// Where a command's report goes: stdout, or with -o FILE a file written atomically (a temporary
// file beside it, then rename), so a reader never sees half a report. A FILE that is a device
// or a FIFO (-o /dev/null, a named pipe) is written through, never replaced; links are followed.
#pragma once

#include <ostream>
#include <string>

namespace perfsage::cli {

// Writes `text` to `path` ("" or "-" = `out`). Returns false (and says why on `err`) when the
// file cannot be written.
bool write_output(const std::string& path, const std::string& text, std::ostream& out,
                  std::ostream& err);

}  // namespace perfsage::cli

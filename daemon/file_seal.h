// Whether a file's own format says it is complete. msprof writes NAME.done beside a finished
// file; a Kineto (Chrome trace) JSON ends with its closing brace; CSV and most other outputs
// have no end, so only a quiet period can tell that they are finished.
#pragma once

#include <filesystem>

namespace perfsage::daemon {

enum class Seal {
  marker,    // an end marker itself (*.done)
  sealed,    // complete by its format: a NAME.done beside it, or closed JSON (gzip included)
  unsealed,  // its format has an end and the end is not there yet (JSON open, gzip cut short)
  unknown,   // its format has no end marker
};

Seal file_seal(const std::filesystem::path& file);

// True when the JSON text of `file` (gzip-compressed or not) starts with '{' or '[' and its
// last non-blank byte closes it. Reads the tail of a plain file; inflates a gzip file whole.
bool json_closed(const std::filesystem::path& file);

}  // namespace perfsage::daemon

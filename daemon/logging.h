// The daemon's log: spdlog to stderr (the journal under systemd, which stamps the time itself)
// or to a size-rotated file (a link, device or FIFO named as the file is appended to, never
// rotated).
// Lifecycle only; analysis results go to the store and the API.
#pragma once

#include "daemon/config.h"

namespace perfsage::daemon {

// Replaces the default logger; throws spdlog::spdlog_ex when the log file cannot be opened.
void setup_logging(const LogConfig& log);

}  // namespace perfsage::daemon

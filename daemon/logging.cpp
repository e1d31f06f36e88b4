#include "daemon/logging.h"

#include <spdlog/sinks/basic_file_sink.h>
#include <spdlog/sinks/rotating_file_sink.h>
#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

namespace perfsage::daemon {
namespace {

// Rotation renames the name (log -> log.1): a link (/dev/stdout is one), a device or a FIFO
// named as the log is appended to instead, never renamed away; only a file is rotated.
spdlog::sink_ptr file_sink(const LogConfig& log) {
  struct stat st;
  if (::lstat(log.file.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
    return std::make_shared<spdlog::sinks::basic_file_sink_mt>(log.file.string());
  return std::make_shared<spdlog::sinks::rotating_file_sink_mt>(log.file.string(), log.max_bytes,
                                                                static_cast<size_t>(log.max_files));
}

}  // namespace

void setup_logging(const LogConfig& log) {
  std::shared_ptr<spdlog::logger> logger;
  if (!log.file.empty()) {
    logger = std::make_shared<spdlog::logger>("perfsaged", file_sink(log));
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e%z [%l] %v");
    logger->flush_on(spdlog::level::info);
  } else {
    logger = std::make_shared<spdlog::logger>("perfsaged",
                                              std::make_shared<spdlog::sinks::stderr_sink_mt>());
    // The journal stamps each line; a terminal gets the time from us.
    logger->set_pattern(::isatty(2) ? "%H:%M:%S.%e [%l] %v" : "[%l] %v");
    logger->flush_on(spdlog::level::trace);
  }
  logger->set_level(spdlog::level::from_str(log.level));
  spdlog::set_default_logger(logger);
}

}  // namespace perfsage::daemon

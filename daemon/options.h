// perfsaged's command line: the config file and the overrides that make a config file
// optional (`perfsaged --watch runs/ --store perf.db`).
#pragma once

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "daemon/config.h"

namespace perfsage::daemon {

struct Options {
  std::filesystem::path config_file;
  bool check_config = false;
  bool migrate = false;  // shared mode: apply the database's schema migrations, then exit
  std::optional<std::string> store, listen, log_level, workers, postgres;
  std::vector<std::string> watch;
  std::filesystem::path port_file;
  int forkserver_fd = -1;  // internal: run as the forkserver on this socket
  bool help = false, version = false, man = false;
};

// nullopt after printing a usage error to `err`.
std::optional<Options> parse_options(const std::vector<std::string>& args, std::ostream& out,
                                     std::ostream& err);

// The config file (when given) with the command line on top, validated. Problems are in the
// result; `ok()` says whether the daemon may start.
DaemonConfigLoad load_config(const Options& options);

}  // namespace perfsage::daemon

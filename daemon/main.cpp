// perfsaged: watches training runs' profiling output, analyses each run once it is complete,
// and serves the results (HTTP API, web page, Prometheus metrics). See docs/daemon.md.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <fstream>
#include <iostream>

#include "app/front_end_names.h"
#include "app/knowledge.h"
#include "app/shared_queue.h"
#include "daemon/analysis_bridge.h"
#include "daemon/daemon.h"
#include "daemon/forkserver.h"
#include "daemon/logging.h"
#include "daemon/man_page.h"
#include "daemon/options.h"

namespace {
namespace fs = std::filesystem;
using namespace perfsage::daemon;

std::string read_token(const DaemonConfig& c) {
  if (!c.token.empty()) return c.token;
  if (c.token_file.empty()) return "";
  std::ifstream in(c.token_file);
  std::string token;
  std::getline(in, token);
  while (!token.empty() && (token.back() == '\r' || token.back() == ' ')) token.pop_back();
  return token;
}

// --check-config: the packs the config selects must load, exactly as a reload would.
int check_knowledge(const DaemonConfig& c) {
  Serving serving;
  auto loaded = load_serving(c.config_file, 1, serving);
  for (const auto& m : loaded.messages()) std::cerr << m << "\n";
  // The service would start with broken packs left out; a check says no.
  if (!loaded.ok() || !loaded.error().empty()) {
    std::cerr << "perfsaged: the packs do not load: " << loaded.error() << "\n";
    return 2;
  }
  std::cout << "config OK: " << perfsage::app::count_text(loaded.packs_size(), "pack") << ", store "
            << c.store.string() << ", listen " << c.listen << ", "
            << perfsage::app::count_text(static_cast<int64_t>(c.watch.size()), "watch folder")
            << "\n";
  return 0;
}
}  // namespace

int main(int argc, char** argv) {
  auto opts = parse_options({argv + 1, argv + argc}, std::cout, std::cerr);
  if (!opts) return 2;
  if (opts->help) return 0;
  if (opts->man) {
    std::cout << perfsaged_man_page(PERFSAGE_VERSION);
    return 0;
  }
  if (opts->version) {
    std::cout << "perfsaged " << PERFSAGE_VERSION << "\n";
    return 0;
  }
  if (opts->forkserver_fd >= 0) {
    return run_forkserver({opts->forkserver_fd, opts->config_file});
  }
  auto load = load_config(*opts);
  for (const auto& p : load.problems) std::cerr << p.str() << "\n";
  if (!load.ok()) return 2;
  // The fact types' queries and slots are declared apart: a mismatch is a build defect that
  // would feed packs defaults instead of data, so the daemon refuses to serve with one.
  if (auto mismatches = perfsage::app::fact_type_mismatches(); !mismatches.empty()) {
    for (const auto& m : mismatches) std::cerr << "perfsaged: internal error: " << m << "\n";
    return 70;
  }
  if (opts->check_config) return check_knowledge(load.config);
  if (opts->migrate) {
    if (load.config.postgres.empty()) {
      std::cerr << "perfsaged: --migrate needs --postgres URI or daemon.postgres\n";
      return 2;
    }
    try {
      int version = perfsage::app::migrate_shared_database(load.config.postgres);
      std::cout << "shared database schema at version " << version << "\n";
      return 0;
    } catch (const std::exception& e) {
      std::cerr << "perfsaged: " << e.what() << "\n";
      return 1;
    }
  }
  try {
    setup_logging(load.config.log);
  } catch (const std::exception& e) {
    std::cerr << "perfsaged: cannot open the log: " << e.what() << "\n";
    return 2;
  }
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) self = fs::absolute(argv[0]);
  block_daemon_signals();
  Daemon daemon(load.config, read_token(load.config), self, PERFSAGE_VERSION);
  return daemon.run();
}

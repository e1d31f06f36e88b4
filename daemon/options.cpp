#include "daemon/options.h"

#include <boost/program_options.hpp>

#include "daemon/listen_address.h"

namespace perfsage::daemon {
namespace po = boost::program_options;
namespace fs = std::filesystem;

std::optional<Options> parse_options(const std::vector<std::string>& args, std::ostream& out,
                                     std::ostream& err) {
  Options o;
  std::string config, store, listen, log_level, port_file, workers, postgres;
  po::options_description opts("perfsaged [options]");
  opts.add_options()("help,h", "show this help")("version", "print the version")(
      "config,c", po::value(&config), "YAML config file (sections daemon, kb, limits)")(
      "check-config", "validate the config and the packs it selects, then exit")(
      "migrate",
      "shared mode: bring the PostgreSQL schema up to date (as a role that may create tables), "
      "then exit")(
      "store", po::value(&store), "the SQLite store (overrides daemon.store)")(
      "postgres", po::value(&postgres),
      "shared mode: the PostgreSQL URI whose job queue several daemons share (overrides "
      "daemon.postgres)")(
      "watch", po::value(&o.watch)->composing(),
      "a folder to watch, each entry a run (repeatable; replaces daemon.watch)")(
      "listen", po::value(&listen), "HOST:PORT to serve the API on (overrides daemon.listen)")(
      "workers", po::value(&workers), "worker processes (overrides daemon.workers)")(
      "log-level", po::value(&log_level), "trace | debug | info | warn | error")(
      "port-file", po::value(&port_file), "write the port once listening (for tests and scripts)");
  po::options_description hidden;
  // --man: perfsaged(8), written by the build (daemon/man_page.cpp).
  hidden.add_options()("forkserver", po::value(&o.forkserver_fd))("man", "");
  po::options_description all;
  all.add(opts).add(hidden);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    err << "perfsaged: " << e.what() << "\n" << opts;
    return std::nullopt;
  }
  if (vm.count("help")) {
    out << opts;
    o.help = true;
  }
  o.version = vm.count("version") > 0;
  o.man = vm.count("man") > 0;
  o.check_config = vm.count("check-config") > 0;
  o.migrate = vm.count("migrate") > 0;
  o.config_file = config;
  if (vm.count("store")) o.store = store;
  if (vm.count("postgres")) o.postgres = postgres;
  if (vm.count("listen")) o.listen = listen;
  if (vm.count("log-level")) o.log_level = log_level;
  if (vm.count("workers")) o.workers = workers;
  o.port_file = port_file;
  return o;
}

DaemonConfigLoad load_config(const Options& o) {
  DaemonConfigLoad load;
  if (!o.config_file.empty()) load = read_daemon_config(o.config_file);
  auto& c = load.config;
  if (o.store) c.store = fs::absolute(*o.store);
  if (o.postgres) c.postgres = *o.postgres;
  if (o.listen) {
    c.listen = *o.listen;
  }
  if (o.log_level) c.log.level = *o.log_level;
  if (o.workers) {
    try {
      c.workers = std::stoi(*o.workers);
    } catch (const std::exception&) {
      c.workers = 0;
    }
    if (c.workers < 1 || c.workers > 256) {
      load.problems.push_back({"--workers", "must be a whole number from 1 to 256", true});
      c.workers = 1;
    }
  }
  if (!o.watch.empty()) {
    c.watch.clear();
    for (const auto& w : o.watch) {
      WatchRoot root;
      root.path = fs::absolute(w).lexically_normal();
      c.watch.push_back(root);
    }
  }
  if (!o.port_file.empty()) c.port_file = fs::absolute(o.port_file);
  validate(load);
  return load;
}

}  // namespace perfsage::daemon

#include "cli/dispatch.h"

#include "cli/commands.h"

namespace perfsage::cli {
namespace {

// One line per command; `perfsage --help` lists them in this order.
const Command kCommands[] = {
    {"analyze", "analyze PATH...   collect profiling dumps and graphs, analyse, print findings",
     run_analyze},
    {"ingest", "ingest PATH...    collect into a store and run the analyzers (--store FILE)",
     run_ingest},
    {"query", "query SQL         read-only SQL over a store (--store FILE), tab-separated",
     run_query},
    {"kb", "kb SUBCOMMAND     knowledge-base packs: list, test, validate, lint, new, install, ...",
     run_kb},
    {"actions", "actions ...       plan, apply, roll back and verify tuning actions", run_actions},
    {"compare", "compare A B       two runs side by side: step time, op deltas, findings",
     run_compare},
    {"daemon", "daemon status     what a running perfsaged is doing", run_daemon},
    {"runs", "runs              the runs perfsaged analysed (--job, --since, --status)", run_runs},
    {"show", "show RUN          one run's report from perfsaged (text, json or html)", run_show},
    {"submit", "submit PATH       queue a file or folder for perfsaged (--wait)", run_submit},
};

}  // namespace

std::span<const Command> commands() {
  return kCommands;
}

namespace {

void usage(std::ostream& os) {
  os << "usage: perfsage <command> [options]\n\ncommands:\n";
  for (const auto& c : kCommands) os << "  " << c.synopsis << "\n";
  os << "  help COMMAND      the options of a command (same as COMMAND --help)\n"
        "  version           print the version\n\n"
        "Exit codes: 0 done, 1 an input cannot be read or nothing was recognised (unless\n"
        "--lenient), 2 bad usage, 3 --fail-on: a finding at or above the severity, 4 --fail-on:\n"
        "a pack failed (or, --lenient, nothing was recognised), 5 the store cannot be used,\n"
        "6 a pack cannot be loaded, tested or installed, 70 internal.\n";
}

}  // namespace

int run(Args args, std::ostream& out, std::ostream& err, const std::string& version) {
  if (args.empty()) {
    usage(err);
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || (args[0] == "help" && args.size() == 1)) {
    usage(out);
    return kExitOk;
  }
  // Hidden: the manual page of a command, or perfsage(1) without one (built by cmake).
  if (args[0] == "--man") return write_man_page(args.size() > 1 ? args[1] : "", out, err, version);
  if (args[0] == "version" || args[0] == "--version") {
    out << "perfsage " << version << "\n";
    return kExitOk;
  }
  // `perfsage help analyze` is `perfsage analyze --help` (and `help kb test` likewise).
  if (args[0] == "help") {
    args.erase(args.begin());
    args.push_back("--help");
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  for (const auto& c : kCommands)
    if (cmd == c.name) return c.run(args, out, err);
  err << "perfsage: unknown command '" << cmd << "'\n";
  usage(err);
  return kExitUsage;
}

}  // namespace perfsage::cli

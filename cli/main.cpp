// perfsage: one-shot analysis, ingest, and knowledge-base tooling.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace {
void usage(std::ostream& os) {
  os << "usage: perfsage <command> [options]\n\n"
        "commands:\n"
        "  analyze PATH...   collect profiling dumps and graphs, analyse, print recommendations\n"
        "  ingest PATH...    collect into a store without analysing (--store FILE)\n"
        "  query SQL         read-only SQL over a store (--store FILE), tab-separated\n"
        "  kb list           list the knowledge-base packs\n"
        "  kb test [PACK]    run pack tests\n"
        "  kb facts          print the fact types packs can use (Markdown)\n"
        "  actions ...       plan, apply, roll back and verify tuning actions (docs/actions.md)\n"
        "  version           print the version\n\n"
        "Run 'perfsage <command> --help' for a command's options.\n";
}

// The analyzers allocate and free vectors of millions of events one after another. glibc's
// defaults give each large one fresh pages (mmap'd above a threshold that starts at 128 KiB,
// and a heap trimmed back to the kernel on free), and on a VM every first touch of a page
// traps: heap memory kept and reused instead cut analysing a 315 MB trace from 2.3-2.6 s to
// 2.1-2.2 s (docs/performance.md). A one-shot command gives everything back when it exits.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's upper limit for it on 64-bit
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}
}  // namespace

int main(int argc, char** argv) {
  // Logs (warnings, --verbose timings) go to stderr so that stdout holds only the report.
  spdlog::set_default_logger(spdlog::stderr_color_st("perfsage"));
  keep_freed_memory();
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    usage(args.empty() ? std::cerr : std::cout);
    return args.empty() ? perfsage::cli::kExitUsage : 0;
  }
  std::string cmd = args[0];
  args.erase(args.begin());
  using namespace perfsage::cli;
  if (cmd == "analyze") return run_analyze(args, std::cout, std::cerr);
  if (cmd == "ingest") return run_ingest(args, std::cout, std::cerr);
  if (cmd == "kb") return run_kb(args, std::cout, std::cerr);
  if (cmd == "query") return run_query(args, std::cout, std::cerr);
  if (cmd == "actions") return run_actions(args, std::cout, std::cerr);
  if (cmd == "version" || cmd == "--version") {
    std::cout << "perfsage " << PERFSAGE_VERSION << "\n";
    return 0;
  }
  std::cerr << "perfsage: unknown command '" << cmd << "'\n";
  usage(std::cerr);
  return kExitUsage;
}

// The perfsage subcommands. Each takes its arguments (without the command name) and returns the
// process exit code; output goes to the given streams so tests can capture it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace perfsage::cli {

// Exit codes (documented in `perfsage --help` and the README).
constexpr int kExitOk = 0;
constexpr int kExitInput = 1;      // an input cannot be read, or (strict) none was recognised
constexpr int kExitUsage = 2;      // bad usage: options, config, pack selection
constexpr int kExitFailOn = 3;     // --fail-on: a finding at or above the severity exists
constexpr int kExitGate = 4;       // --fail-on: a pack failed or ran out of budget, or no input
                                   // was recognised
constexpr int kExitStore = 5;      // the store cannot be opened, read or written
constexpr int kExitPack = 6;       // a pack cannot be loaded, tested or installed (kb commands)
constexpr int kExitInternal = 70;  // a defect in perfsage (EX_SOFTWARE)

using Args = std::vector<std::string>;

int run_analyze(const Args& args, std::ostream& out, std::ostream& err);
int run_ingest(const Args& args, std::ostream& out, std::ostream& err);
int run_query(const Args& args, std::ostream& out, std::ostream& err);
int run_kb(const Args& args, std::ostream& out, std::ostream& err);
int run_actions(const Args& args, std::ostream& out, std::ostream& err);
int run_compare(const Args& args, std::ostream& out, std::ostream& err);
// Requests to a running perfsaged (cli/daemon_client_commands.cpp).
int run_daemon(const Args& args, std::ostream& out, std::ostream& err);  // daemon status
int run_runs(const Args& args, std::ostream& out, std::ostream& err);
int run_show(const Args& args, std::ostream& out, std::ostream& err);
int run_submit(const Args& args, std::ostream& out, std::ostream& err);

// The subcommands of kb, actions and daemon, in their usage's order (the man pages list them).
std::vector<std::string> kb_subcommands();
std::vector<std::string> actions_subcommands();
std::vector<std::string> daemon_subcommands();

}  // namespace perfsage::cli

// The perfsage subcommands. Each takes its arguments (without the command name) and returns the
// process exit code; output goes to the given streams so tests can capture it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace perfsage::cli {

constexpr int kExitOk = 0;
constexpr int kExitInput = 1;   // an input cannot be read
constexpr int kExitUsage = 2;   // bad usage
constexpr int kExitFailOn = 3;  // --fail-on severity reached

using Args = std::vector<std::string>;

int run_analyze(const Args& args, std::ostream& out, std::ostream& err);
int run_ingest(const Args& args, std::ostream& out, std::ostream& err);
int run_query(const Args& args, std::ostream& out, std::ostream& err);
int run_kb(const Args& args, std::ostream& out, std::ostream& err);

}  // namespace perfsage::cli

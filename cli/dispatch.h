// The perfsage command line: the command table, help and version. main() only sets up logging
// and memory, then calls run(); tests call run() in-process.
#pragma once

#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.h"

namespace perfsage::cli {

struct Command {
  const char* name;
  const char* synopsis;  // "analyze PATH...   collect ...": usage and the man pages' NAME line
  int (*run)(const Args&, std::ostream&, std::ostream&);
};

// The commands, in the order `perfsage --help` lists them.
std::span<const Command> commands();

// `perfsage --man COMMAND`: the manual page perfsage-COMMAND(1), or perfsage(1) for "".
int write_man_page(const std::string& command, std::ostream& out, std::ostream& err,
                   const std::string& version);

int run(std::vector<std::string> args, std::ostream& out, std::ostream& err,
        const std::string& version);

}  // namespace perfsage::cli

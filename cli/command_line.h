// Parsing a subcommand's options the same way everywhere: --help prints the options and stops;
// a bad option, a missing required one or a failed check prints the reason in one line to err
// and stops with kExitUsage.
#pragma once

#include <boost/program_options.hpp>
#include <functional>
#include <optional>
#include <ostream>

#include "cli/commands.h"

namespace perfsage::cli {

// Parses `args` into `vm` (options bound to variables are filled); `check`, run after that,
// throws boost::program_options::error for values the command rejects. Returns the exit code
// to stop with, or nullopt to go on.
std::optional<int> parse_command_line(
    const char* command, const Args& args, const boost::program_options::options_description& opts,
    const boost::program_options::positional_options_description& pos,
    boost::program_options::variables_map& vm, std::ostream& out, std::ostream& err,
    const std::function<void()>& check = {});

}  // namespace perfsage::cli

// The perfsage command line: the command table, help and version. main() only sets up logging
// and memory, then calls run(); tests call run() in-process.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace perfsage::cli {

int run(std::vector<std::string> args, std::ostream& out, std::ostream& err,
        const std::string& version);

}  // namespace perfsage::cli

// perfsaged(8), written by `perfsaged --man` when perfsaged is built: its options as it parses
// them (daemon/options.cpp) and what a service administrator looks up: config keys, signals,
// files, the API, exit codes.
#pragma once

#include <string>

namespace perfsage::daemon {

std::string perfsaged_man_page(const std::string& version);

}  // namespace perfsage::daemon

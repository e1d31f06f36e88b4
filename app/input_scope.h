// Which inputs a service may read on a client's behalf. perfsaged reads what a client submits
// with the daemon's own rights, so a submitted path must lie under one of the configured
// folders (daemon.submit_roots, by default the watch folders), and so must every file it leads
// to: symbolic links are resolved, so a link inside an allowed folder to /etc is refused too.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace perfsage::app {

// Empty when `input` and everything below it resolve to places under one of `roots`; else why
// not, naming the path and where it leads ("no roots" refuses everything).
std::string outside_roots(const std::filesystem::path& input,
                          const std::vector<std::filesystem::path>& roots);

}  // namespace perfsage::app

// Starts a program as a child process with its stderr appended to a log file; shared by the
// daemon's integration tests and its benchmarks, which start perfsaged and perfsage this way.
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

namespace perfsage::test {

// argv[0] is the program's path. Returns the child's pid (-1 when fork fails); the child exits
// 127 when the program cannot be executed.
inline pid_t spawn_logged(std::vector<std::string> argv, const std::filesystem::path& log) {
  pid_t pid = ::fork();
  if (pid == 0) {
    FILE* f = std::freopen(log.c_str(), "a", stderr);
    (void)f;
    std::vector<char*> c;
    for (auto& a : argv) c.push_back(a.data());
    c.push_back(nullptr);
    ::execv(c[0], c.data());
    _exit(127);
  }
  return pid;
}

}  // namespace perfsage::test

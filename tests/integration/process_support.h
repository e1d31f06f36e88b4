// Runs the real `perfsage` binary as a child process: for what only a separate process shows
// (kill -9 at a chosen point, concurrent writers, file permissions).
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "test_support.h"

namespace perfsage::test {

inline std::filesystem::path perfsage_binary() {
  return std::filesystem::path(PERFSAGE_BINARY_DIR) / "bin" / "perfsage";
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Whom a child runs as: as is, or (when the tests run as root, whom file permissions do not
// stop) as the unprivileged user nobody, so that a write-protected store is really read-only.
enum class As { self, unprivileged };

class Child {
 public:
  // Starts perfsage with `args`; stdout and stderr go to files in `dir`. `env` ("NAME=value")
  // is added to the child's environment only, e.g. PERFSAGE_TEST_PAUSE_AT (app/analysis.cpp).
  Child(const std::vector<std::string>& args, const std::filesystem::path& dir, As as = As::self,
        const std::vector<std::string>& env = {})
      : out_(dir / ("child" + std::to_string(next()) + ".out")), err_(out_.string() + ".err") {
    std::vector<std::string> argv_s{perfsage_binary().string()};
    argv_s.insert(argv_s.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : argv_s) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> env_s = env;
    for (char** e = environ; *e; ++e) {
      std::string_view kv(*e);
      bool replaced = false;
      for (const auto& add : env)
        replaced |= kv.substr(0, kv.find('=') + 1) == add.substr(0, add.find('=') + 1);
      if (!replaced) env_s.emplace_back(kv);
    }
    std::vector<char*> envp;
    for (auto& e : env_s) envp.push_back(e.data());
    envp.push_back(nullptr);
    pid_ = ::fork();
    REQUIRE(pid_ >= 0);
    if (pid_ == 0) {
      int out = ::open(out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      int err = ::open(err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || err < 0 || ::dup2(out, 1) < 0 || ::dup2(err, 2) < 0) ::_exit(126);
      if (as == As::unprivileged && ::geteuid() == 0) {
        if (::setgid(65534) != 0 || ::setuid(65534) != 0) ::_exit(126);
      }
      ::execve(argv[0], argv.data(), envp.data());
      ::_exit(127);
    }
  }
  ~Child() {
    if (pid_ > 0) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
  }
  Child(const Child&) = delete;
  Child& operator=(const Child&) = delete;

  // Waits until stderr holds `text` (true) or the child has exited (false).
  bool wait_for_stderr(const std::string& text) {
    for (;;) {
      if (err().find(text) != std::string::npos) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        status_ = status;
        return err().find(text) != std::string::npos;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  // Waits until `done()` is true (true) or the child has exited (false).
  bool wait_until(const std::function<bool()>& done) {
    for (;;) {
      if (done()) return true;
      int status = 0;
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        pid_ = -1;
        status_ = status;
        return false;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
  }
  void kill9() {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
  }
  // The exit code, or 128 + the signal that ended it.
  int wait() {
    if (pid_ > 0) {
      ::waitpid(pid_, &status_, 0);
      pid_ = -1;
    }
    return WIFEXITED(status_) ? WEXITSTATUS(status_) : 128 + WTERMSIG(status_);
  }
  std::string out() const { return read_text(out_); }
  std::string err() const { return read_text(err_); }

 private:
  static int next() {
    static int n = 0;
    return n++;
  }
  std::filesystem::path out_, err_;
  pid_t pid_ = -1;
  int status_ = 0;
};

// Runs perfsage to completion.
struct Finished {
  int code;
  std::string out, err;
};
inline Finished run_perfsage(const std::vector<std::string>& args, const std::filesystem::path& dir,
                             As as = As::self) {
  Child c(args, dir, as);
  int code = c.wait();
  return {code, c.out(), c.err()};
}

}  // namespace perfsage::test

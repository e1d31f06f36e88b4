#include "engine/pack_child.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>

#include "engine/clips/environment.h"
#include "engine/finding.h"
#include "perfsage/v1/report.pb.h"

namespace perfsage::engine {
namespace {

constexpr int kExitOutOfMemory = 3;
constexpr int kExitFailed = 4;
constexpr std::chrono::milliseconds kGrace{2000};
constexpr size_t kMaxOutcomeBytes = 256u << 20;

void set_limit(int resource, rlim_t soft, rlim_t hard) {
  rlimit lim{soft, hard};
  setrlimit(resource, &lim);
}

bool write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = write(fd, data, n);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    data += w;
    n -= static_cast<size_t>(w);
  }
  return true;
}

[[noreturn]] void run_child(int fd, const CompiledPack& pack, const FactSource& source,
                            double base_us, const std::string& device, const Budget& budget) {
  // Nothing here may take a lock another thread of the parent held at fork: no logging, and
  // CLIPS running out of memory ends the process instead of unwinding through it.
  clips::enter_isolated_process(kExitOutOfMemory);
  const auto cpu_s = static_cast<rlim_t>(std::ceil(budget.time.count() / 1000.0)) + 1;
  set_limit(RLIMIT_CPU, cpu_s, cpu_s + 1);
  set_limit(RLIMIT_AS, mapped_bytes() + budget.memory_bytes + (64u << 20), RLIM_INFINITY);
  set_limit(RLIMIT_FSIZE, 0, 0);
  set_limit(RLIMIT_CORE, 0, 0);
  try {
    PackEvaluation pe = evaluate_pack(pack, source, base_us, device, budget);
    perfsage::v1::PackOutcome msg;
    auto* r = msg.mutable_result();
    r->set_name(pe.result.pack);
    r->set_version(pe.result.version);
    r->set_status(pe.result.status);
    r->set_fired(pe.result.fired);
    r->set_error(pe.result.error);
    r->set_source(pe.result.source);
    for (auto& f : pe.findings) *msg.add_findings() = std::move(f);
    msg.set_duplicates(pe.duplicates);
    msg.set_elapsed_ms(pe.result.elapsed_ms);
    std::string bytes;
    if (!msg.SerializeToString(&bytes)) _exit(kExitFailed);
    _exit(write_all(fd, bytes.data(), bytes.size()) ? 0 : kExitFailed);
  } catch (const std::bad_alloc&) {
    _exit(kExitOutOfMemory);
  } catch (...) {
    _exit(kExitFailed);
  }
}

std::string signal_name(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace

PackEvaluation evaluate_pack_in_child(const CompiledPack& pack, const FactSource& source,
                                      double base_us, const std::string& device,
                                      const Budget& budget) {
  if (!pack.valid || !applies_to_device(pack, device))
    return evaluate_pack(pack, source, base_us, device, budget);  // nothing of the pack runs
  auto start = std::chrono::steady_clock::now();
  PackEvaluation out;
  auto& res = out.result;
  res.pack = pack.pack.name;
  res.version = pack.pack.version;
  res.source = pack.pack.source;
  res.isolated = true;
  auto fail = [&](const std::string& status, const std::string& why) {
    res.status = status;
    res.error = why;
    res.elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    return out;
  };
  // The facts are materialised here: the child must not touch the parent's SQLite connections.
  std::map<std::string, std::vector<facts::SlotValues>> facts_by_type;
  try {
    for (const auto& name : pack.pack.uses) facts_by_type[name] = source(*pack.fact_type(name));
  } catch (const std::exception& e) {
    return fail("error", e.what());
  }
  FactSource local = [&](const facts::FactType& t) { return facts_by_type.at(t.name); };

  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return fail("error", std::string("pipe: ") + strerror(errno));
  std::fflush(nullptr);  // the child must not flush the parent's buffered output again
  pid_t pid = fork();
  if (pid < 0) {
    close(fds[0]);
    close(fds[1]);
    return fail("error", std::string("fork: ") + strerror(errno));
  }
  if (pid == 0) {
    close(fds[0]);
    run_child(fds[1], pack, local, base_us, device, budget);
  }
  close(fds[1]);

  std::string bytes;
  bool timed_out = false, too_big = false;
  const auto deadline = start + budget.time + kGrace;
  char buf[65536];
  for (;;) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    int ready = poll(&p, 1, static_cast<int>(left.count()));
    if (ready < 0 && errno == EINTR) continue;
    if (ready == 0) continue;  // loop re-checks the deadline
    ssize_t n = read(fds[0], buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    bytes.append(buf, static_cast<size_t>(n));
    if (bytes.size() > kMaxOutcomeBytes) {
      too_big = true;
      break;
    }
  }
  close(fds[0]);
  if (timed_out || too_big) kill(pid, SIGKILL);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  const auto mib = std::to_string(budget.memory_bytes >> 20);
  if (timed_out)
    return fail("budget_exceeded", "time budget of " + std::to_string(budget.time.count()) +
                                       " ms exceeded; the evaluator process was killed");
  if (too_big) return fail("error", "the pack produced more than 256 MiB of findings");
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    if (sig == SIGXCPU)
      return fail("budget_exceeded", "CPU time limit of the evaluator process reached");
    if (sig == SIGKILL) return fail("budget_exceeded", "evaluator process killed (out of memory?)");
    return fail("error", "the evaluator process crashed with " + signal_name(sig) +
                             " while running this pack");
  }
  int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (code == kExitOutOfMemory)
    return fail("budget_exceeded", "memory limit of " + mib + " MiB reached");
  perfsage::v1::PackOutcome msg;
  if (code != 0 || !msg.ParseFromString(bytes))
    return fail("error", "the evaluator process failed (exit code " + std::to_string(code) + ")");
  res.status = msg.result().status();
  res.fired = msg.result().fired();
  res.error = msg.result().error();
  res.elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  for (auto& f : *msg.mutable_findings()) out.findings.push_back(std::move(f));
  out.duplicates = msg.duplicates();
  // The child refuses such findings already (make_finding); the host does not take its word.
  for (const auto& f : out.findings) {
    std::string why = non_finite_number(f);
    if (why.empty()) continue;
    why = "rule " + f.rule() + ": " + why + "; a rule's numbers must be finite";
    out.findings.clear();
    return fail("error", why);
  }
  return out;
}

size_t mapped_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t pages = 0;
  statm >> pages;
  return pages * static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

}  // namespace perfsage::engine

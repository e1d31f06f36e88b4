// RAII wrapper over one CLIPS 6.30 environment (Env* API only).
//
//   clips::Environment env;                 // sandboxed unless told otherwise
//   auto errors = env.load(constructs, "pack.yaml");
//   auto* t = env.find_template("op");
//   env.assert_fact(t, {{"name", Value::of_string("Cast")}, ...});
//   auto outcome = env.run(budget);
//   for (auto& f : env.facts("recommendation")) ...
//
// Output written by CLIPS (errors, warnings, printout) is captured per environment in
// messages() and logged through spdlog; it never reaches the process's stdout. Every
// callback CLIPS calls into is a noexcept shim.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/clips/budget.h"
#include "engine/clips/value.h"

namespace perfsage::engine::clips {

// One piece of output CLIPS produced, by logical name (werror, wwarning, stdout, ...).
struct Message {
  std::string channel;
  std::string text;
};

// A parse error or warning, with the line inside the loaded source text (1-based).
struct LoadError {
  long line = 0;
  std::string text;
  bool warning = false;
};

enum class RunStatus { ok, time_exceeded, memory_exceeded, firing_limit, error };
const char* to_string(RunStatus s);

struct RunOutcome {
  RunStatus status = RunStatus::ok;
  int64_t fired = 0;
  std::string detail;  // why it stopped, when not ok
};

using Fact = std::map<std::string, Value>;

// For an evaluator child process (engine/pack_child.h): environments created afterwards log
// nothing (the parent's logger may have been locked at fork) and end the process with
// `out_of_memory_exit_code` when CLIPS cannot allocate, instead of CLIPS's exit(1); none is
// freed (the child exits after its pack).
void enter_isolated_process(int out_of_memory_exit_code);

// For a process that exits when its job is done (a daemon worker): environments it no longer
// needs are left to the OS instead of being freed, up to `bytes` of CLIPS memory in all (larger
// ones are freed as usual, so a big run's packs do not pile up). Freeing one inherited from the
// forkserver would first copy each of its pages.
void leave_environments_to_exit(size_t bytes);

class Environment {
 public:
  // sandboxed: remove every function outside the allow list (see sandbox.h).
  explicit Environment(bool sandboxed = true);
  ~Environment();
  // Frees the CLIPS environment now, whatever leave_environments_to_exit allows: for one
  // released early so that its memory serves the rest of the process. Nothing is usable after.
  void destroy();
  Environment(const Environment&) = delete;
  Environment& operator=(const Environment&) = delete;

  // Loads constructs from text. Returns the errors (empty = success). CLIPS loads
  // partially on error, so validate in a scratch environment before the real one.
  std::vector<LoadError> load(std::string_view constructs);

  // Retracts all facts and asserts the deffacts (call before asserting facts).
  void reset();

  // Template handle or nullptr.
  void* find_template(const std::string& name) const;
  // Asserts one fact through the fact API; slots not given take their defaults.
  // Throws EngineError when a slot does not exist or the value violates its type.
  void assert_fact(void* tmpl, const std::vector<std::pair<std::string, Value>>& slots);
  // All facts of a template, slot name -> value.
  std::vector<Fact> facts(const std::string& tmpl_name) const;

  // Starts budget accounting (the deadline runs from here); also checked while asserting.
  void start_budget(const Budget& budget);
  // True once the time or memory budget is exhausted; detail in budget_detail().
  bool budget_exhausted();
  const std::string& budget_detail() const { return budget_detail_; }

  // Resets nothing: runs the agenda under the budget set by start_budget().
  RunOutcome run();

  // Captured output since creation (or the last clear_messages()).
  const std::vector<Message>& messages() const { return messages_; }
  std::string errors_text() const;  // werror output joined
  void clear_messages() { messages_.clear(); }

  long memory_used() const;
  void* raw() const { return env_; }

  // For an environment created before enter_isolated_process() and used after it (a pack's
  // pristine environment inherited by an evaluator child): it now ends the process on running
  // out of memory, as one created in the child does.
  void follow_process_isolation();

  // Called from the C shims; public only for them.
  void on_print(const char* channel, const char* text) noexcept;
  void on_parse_error(const char* warning, const char* error, long line) noexcept;
  void on_periodic() noexcept;

 private:
  struct SlotCheck {
    bool multi = false;
    bool allows[4] = {false, false, false, false};  // Integer, Float, Symbol, String
  };
  const SlotCheck* slot_check(void* tmpl, const std::string& slot);

  void* env_ = nullptr;
  std::map<std::pair<void*, std::string>, SlotCheck> slot_checks_;
  std::vector<Message> messages_;
  std::vector<LoadError>* load_errors_ = nullptr;
  Budget budget_;
  std::chrono::steady_clock::time_point deadline_{};
  bool budget_active_ = false;
  RunStatus budget_status_ = RunStatus::ok;
  std::string budget_detail_;
};

}  // namespace perfsage::engine::clips

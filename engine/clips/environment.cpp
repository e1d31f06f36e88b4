#include "engine/clips/environment.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>

#include "engine/clips/checked_math.h"
#include "engine/clips/sandbox.h"
#include "engine/error.h"

extern "C" {
#include <clips/clips.h>
}

namespace perfsage::engine::clips {
namespace {

constexpr const char* kRouter = "perfsage-capture";
constexpr const char* kPeriodic = "perfsage-budget";

// Logical names this environment captures; "stdin" reads return EOF so nothing blocks.
bool captured(const char* name) {
  // CLIPS asks every router about every character it reads while loading constructs (from the
  // string source "perfsage-source"): the first letter rules that name out without a compare.
  if (name[0] != 'w' && name[0] != 's' && name[0] != 't') return false;
  static constexpr const char* kNames[] = {"werror",  "wwarning", "wdisplay", "wtrace", "wdialog",
                                           "wprompt", "stdout",   "stdin",    "t"};
  for (const char* n : kNames)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

// Set once in an evaluator child process, before any environment exists there.
bool g_isolated = false;
int g_oom_exit_code = 1;
// CLIPS memory that environments may still leave to the process's exit (a daemon worker's).
std::atomic<size_t> g_left_to_exit{0};

// Takes `bytes` from the allowance when it has that much left.
bool leave_to_exit(size_t bytes) {
  size_t left = g_left_to_exit.load();
  while (left >= bytes)
    if (g_left_to_exit.compare_exchange_weak(left, left - bytes)) return true;
  return false;
}

int out_of_memory_exit(void*, size_t) {
  _exit(g_oom_exit_code);
}

Environment* self(void* env) {
  return static_cast<Environment*>(GetEnvironmentContext(env));
}

int query_shim(void*, const char* name) {
  return captured(name) ? TRUE : FALSE;
}
int print_shim(void* env, const char* name, const char* text) {
  if (auto* e = self(env)) e->on_print(name, text);
  return TRUE;
}
int getc_shim(void*, const char*) {
  return EOF;
}
int ungetc_shim(void*, int, const char*) {
  return EOF;
}
int exit_shim(void*, int) {
  return TRUE;
}

void parse_error_shim(void* env, const char*, const char* warning, const char* error, long line) {
  if (auto* e = self(env)) e->on_parse_error(warning, error, line);
}
void periodic_shim(void* env) {
  if (auto* e = self(env)) e->on_periodic();
}

Value to_value(void* env, const DATA_OBJECT& d) {
  switch (GetType(d)) {
    case INTEGER:
      return Value::of_int(DOToLong(d));
    case FLOAT:
      return Value::of_float(DOToDouble(d));
    case SYMBOL:
      return Value::of_symbol(DOToString(d));
    case STRING:
      return Value::of_string(DOToString(d));
    case MULTIFIELD: {
      Value v;
      v.type = ValueType::Multifield;
      void* mf = GetValue(d);
      for (long i = GetDOBegin(d); i <= GetDOEnd(d); ++i) {
        DATA_OBJECT item;
        SetType(item, GetMFType(mf, i));
        SetValue(item, GetMFValue(mf, i));
        v.items.push_back(to_value(env, item));
      }
      return v;
    }
    default: {
      Value v;
      v.type = ValueType::Other;
      v.text = "<other>";
      return v;
    }
  }
}

void from_value(void* env, const Value& v, DATA_OBJECT& d) {
  switch (v.type) {
    case ValueType::Integer:
      SetType(d, INTEGER);
      SetValue(d, EnvAddLong(env, v.integer));
      return;
    case ValueType::Float:
      SetType(d, FLOAT);
      SetValue(d, EnvAddDouble(env, v.real));
      return;
    case ValueType::String:
      SetType(d, STRING);
      SetValue(d, EnvAddSymbol(env, v.text.c_str()));
      return;
    case ValueType::Multifield: {
      void* mf = EnvCreateMultifield(env, static_cast<long>(v.items.size()));
      long i = 1;
      for (const auto& item : v.items) {
        DATA_OBJECT one;
        from_value(env, item, one);
        SetMFType(mf, i, GetType(one));
        SetMFValue(mf, i, GetValue(one));
        ++i;
      }
      SetType(d, MULTIFIELD);
      SetValue(d, mf);
      SetDOBegin(d, 1);
      SetDOEnd(d, static_cast<long>(v.items.size()));
      return;
    }
    default:
      SetType(d, SYMBOL);
      SetValue(d, EnvAddSymbol(env, v.text.empty() ? "nil" : v.text.c_str()));
      return;
  }
}

}  // namespace

void leave_environments_to_exit(size_t bytes) {
  g_left_to_exit = bytes;
}

void enter_isolated_process(int out_of_memory_exit_code) {
  g_isolated = true;
  g_oom_exit_code = out_of_memory_exit_code;
}

const char* to_string(RunStatus s) {
  switch (s) {
    case RunStatus::ok:
      return "ok";
    case RunStatus::time_exceeded:
      return "time budget exceeded";
    case RunStatus::memory_exceeded:
      return "memory budget exceeded";
    case RunStatus::firing_limit:
      return "rule firing limit reached";
    case RunStatus::error:
      return "error";
  }
  return "?";
}

Environment::Environment(bool sandboxed) {
  env_ = CreateEnvironment();
  if (!env_) throw EngineError("cannot create a CLIPS environment");
  SetEnvironmentContext(env_, this);
  EnvAddRouterWithContext(env_, kRouter, 40, query_shim, print_shim, getc_shim, ungetc_shim,
                          exit_shim, this);
  EnvSetParserErrorCallback(env_, parse_error_shim);
  EnvAddPeriodicFunction(env_, kPeriodic, periodic_shim, 0);
  // Type violations in asserted facts become errors instead of silently stored values.
  EnvSetDynamicConstraintChecking(env_, TRUE);
  if (g_isolated) EnvSetOutOfMemoryFunction(env_, out_of_memory_exit);
  define_checked_math(env_);
  if (sandboxed) apply_sandbox(env_);
}

void Environment::follow_process_isolation() {
  if (g_isolated) EnvSetOutOfMemoryFunction(env_, out_of_memory_exit);
}

void Environment::destroy() {
  if (!env_) return;
  DestroyEnvironment(env_);
  env_ = nullptr;
}

Environment::~Environment() {
  // An evaluator child ends right after its one pack: the OS takes the memory back, where
  // freeing it would first copy every page of an environment inherited from the parent.
  if (!env_ || g_isolated) return;
  const long used = EnvMemUsed(env_);
  if (used >= 0 && leave_to_exit(static_cast<size_t>(used))) return;
  DestroyEnvironment(env_);
}

void Environment::on_print(const char* channel, const char* text) noexcept {
  try {
    // Once the budget is spent, execution is halted (on_periodic): what CLIPS says then is about
    // the evaluation it abandoned (a function given FALSE for a number), not the pack's error.
    if (budget_status_ != RunStatus::ok && std::strcmp(channel, "werror") == 0) return;
    if (!messages_.empty() && messages_.back().channel == channel &&
        (messages_.back().text.empty() || messages_.back().text.back() != '\n')) {
      messages_.back().text += text;
    } else {
      messages_.push_back({channel, text});
    }
    if (!g_isolated && std::strcmp(channel, "werror") == 0) spdlog::debug("clips: {}", text);
  } catch (...) {
    // Out of memory while capturing output: drop the text rather than unwind through CLIPS.
  }
}

void Environment::on_parse_error(const char* warning, const char* error, long line) noexcept {
  try {
    if (!load_errors_) return;
    if (error && *error) load_errors_->push_back({line, error, false});
    if (warning && *warning) load_errors_->push_back({line, warning, true});
  } catch (...) {
  }
}

// CLIPS calls this between rule firings and inside every loop it evaluates (fact queries,
// progn$, foreach), wherever the loop is: in a `test`, a gain or an evidence expression. Halting
// the rules alone stops nothing until the running loop ends; halting execution stops the loop
// too (each iteration checks it), so a budget holds in-process as well as in a child.
void Environment::on_periodic() noexcept {
  if (!budget_active_ || !budget_exhausted()) return;
  EnvSetHaltRules(env_, TRUE);
  SetHaltExecution(env_, TRUE);
}

std::vector<LoadError> Environment::load(std::string_view constructs) {
  std::vector<LoadError> errors;
  std::string text(constructs);
  const char* source = "perfsage-source";
  if (!OpenStringSource(env_, source, text.c_str(), 0))
    throw EngineError("cannot open a CLIPS string source");
  size_t before = messages_.size();
  load_errors_ = &errors;
  int ok = LoadConstructsFromLogicalName(env_, source);
  load_errors_ = nullptr;
  CloseStringSource(env_, source);
  bool has_error = false;
  for (const auto& e : errors) has_error |= !e.warning;
  if (!ok && !has_error) {
    // An error without a parser callback: report the captured error text instead.
    std::string detail;
    for (size_t i = before; i < messages_.size(); ++i)
      if (messages_[i].channel == "werror") detail += messages_[i].text;
    errors.push_back({0, detail.empty() ? "CLIPS could not load the constructs" : detail, false});
  }
  return errors;
}

void Environment::reset() {
  EnvReset(env_);
}

void* Environment::find_template(const std::string& name) const {
  return EnvFindDeftemplate(env_, name.c_str());
}

// The slot's allowed types, read once per template and slot (EnvAssert does not check them).
const Environment::SlotCheck* Environment::slot_check(void* tmpl, const std::string& slot) {
  auto key = std::make_pair(tmpl, slot);
  auto it = slot_checks_.find(key);
  if (it != slot_checks_.end()) return &it->second;
  if (!EnvDeftemplateSlotExistP(env_, tmpl, slot.c_str())) return nullptr;
  SlotCheck check;
  check.multi = EnvDeftemplateSlotMultiP(env_, tmpl, slot.c_str());
  DATA_OBJECT types;
  EnvDeftemplateSlotTypes(env_, tmpl, slot.c_str(), &types);
  if (GetType(types) == MULTIFIELD) {
    void* mf = GetValue(types);
    for (long i = GetDOBegin(types); i <= GetDOEnd(types); ++i) {
      std::string t = ValueToString(GetMFValue(mf, i));
      if (t == "INTEGER") check.allows[0] = true;
      if (t == "FLOAT") check.allows[1] = true;
      if (t == "SYMBOL") check.allows[2] = true;
      if (t == "STRING") check.allows[3] = true;
    }
  }
  return &slot_checks_.emplace(key, check).first->second;
}

namespace {

// A slot value as an error message shows it: numbers printed, long texts cut.
std::string render(const Value& v) {
  char buf[32];
  switch (v.type) {
    case ValueType::Integer:
      return std::to_string(v.integer);
    case ValueType::Float:
      std::snprintf(buf, sizeof buf, "%.17g", v.real);
      return buf;
    case ValueType::Multifield:
      return "(" + std::to_string(v.items.size()) + " values)";
    default:
      return v.text.size() > 80 ? v.text.substr(0, 77) + "..." : v.text;
  }
}

}  // namespace

void Environment::assert_fact(void* tmpl, const std::vector<std::pair<std::string, Value>>& slots) {
  if (!tmpl) throw EngineError("assert_fact: no such template");
  for (const auto& [slot, value] : slots) {
    const SlotCheck* check = slot_check(tmpl, slot);
    if (!check)
      throw EngineError("template '" + std::string(EnvGetDeftemplateName(env_, tmpl)) +
                        "' has no slot '" + slot + "'");
    auto allowed = [&](const Value& v) {
      int i = static_cast<int>(v.type);
      return i < 4 && check->allows[i];
    };
    bool ok = value.type == ValueType::Multifield
                  ? check->multi && std::all_of(value.items.begin(), value.items.end(), allowed)
                  : !check->multi && allowed(value);
    if (!ok)
      throw EngineError("value '" + render(value) + "' does not fit slot '" + slot +
                        "' of template '" + EnvGetDeftemplateName(env_, tmpl) + "'");
  }
  struct fact* f = EnvCreateFact(env_, tmpl);
  if (!f) throw EngineError("cannot create a fact");
  for (const auto& [slot, value] : slots) {
    DATA_OBJECT d;
    from_value(env_, value, d);
    if (!EnvPutFactSlot(env_, f, slot.c_str(), &d)) {
      ReturnFact(env_, f);
      throw EngineError(std::string("cannot set slot '") + slot + "' of template '" +
                        EnvGetDeftemplateName(env_, tmpl) + "'");
    }
  }
  EnvAssignFactSlotDefaults(env_, f);
  const size_t errors_before = messages_.size();
  void* asserted = EnvAssert(env_, f);
  const bool new_error =
      std::any_of(messages_.begin() + static_cast<long>(errors_before), messages_.end(),
                  [](const Message& m) { return m.channel == "werror"; });
  // With fact duplication off (CLIPS' default), EnvAssert returns NULL for a fact equal in
  // every slot to one already asserted, and frees it: the rules already see that fact, so it is
  // no refusal (two roofline rows of one op with the same shapes are one fact).
  if (!asserted && !GetEvaluationError(env_) && !new_error) return;
  if (!asserted || GetEvaluationError(env_)) {
    // A constraint violation is reported through the error flag; undo and surface it, naming
    // the slots and values so that the fact can be found in the query's output.
    if (asserted) EnvRetract(env_, asserted);
    SetEvaluationError(env_, FALSE);
    SetHaltExecution(env_, FALSE);
    std::string detail;
    for (size_t i = errors_before; i < messages_.size(); ++i)
      if (messages_[i].channel == "werror") detail += messages_[i].text;
    std::string values;
    for (const auto& [slot, value] : slots) {
      if (values.size() > 400) {
        values += " ...";
        break;
      }
      values += (values.empty() ? "" : ", ") + slot + "=" + render(value);
    }
    while (!detail.empty() && (detail.back() == '\n' || detail.back() == ' ')) detail.pop_back();
    throw EngineError(std::string("CLIPS refused a fact of template '") +
                      EnvGetDeftemplateName(env_, tmpl) + "' (" + values + ")" +
                      (detail.empty() ? std::string() : ": " + detail));
  }
}

std::vector<Fact> Environment::facts(const std::string& tmpl_name) const {
  std::vector<Fact> out;
  void* tmpl = find_template(tmpl_name);
  if (!tmpl) return out;
  DATA_OBJECT names;
  EnvDeftemplateSlotNames(env_, tmpl, &names);
  std::vector<std::string> slots;
  void* mf = GetValue(names);
  for (long i = GetDOBegin(names); i <= GetDOEnd(names); ++i)
    slots.emplace_back(ValueToString(GetMFValue(mf, i)));
  for (void* f = EnvGetNextFactInTemplate(env_, tmpl, nullptr); f;
       f = EnvGetNextFactInTemplate(env_, tmpl, f)) {
    Fact fact;
    for (const auto& s : slots) {
      DATA_OBJECT d;
      if (EnvGetFactSlot(env_, f, s.c_str(), &d)) fact[s] = to_value(env_, d);
    }
    out.push_back(std::move(fact));
  }
  return out;
}

void Environment::start_budget(const Budget& budget) {
  budget_ = budget;
  deadline_ = std::chrono::steady_clock::now() + budget.time;
  budget_active_ = true;
  budget_status_ = RunStatus::ok;
  budget_detail_.clear();
}

bool Environment::budget_exhausted() {
  if (!budget_active_) return false;
  if (budget_status_ != RunStatus::ok) return true;
  if (std::chrono::steady_clock::now() >= deadline_) {
    budget_status_ = RunStatus::time_exceeded;
    budget_detail_ = "time budget of " + std::to_string(budget_.time.count()) + " ms exceeded";
  } else if (static_cast<std::size_t>(EnvMemUsed(env_)) > budget_.memory_bytes) {
    budget_status_ = RunStatus::memory_exceeded;
    budget_detail_ = "memory budget of " + std::to_string(budget_.memory_bytes) +
                     " bytes exceeded (CLIPS uses " + std::to_string(EnvMemUsed(env_)) + ")";
  }
  return budget_status_ != RunStatus::ok;
}

RunOutcome Environment::run() {
  RunOutcome out;
  if (budget_exhausted()) {
    out.status = budget_status_;
    out.detail = budget_detail_;
    return out;
  }
  size_t before = messages_.size();
  long long limit = budget_active_ ? budget_.max_firings : -1;
  EnvSetHaltRules(env_, FALSE);
  out.fired = EnvRun(env_, limit);
  if (budget_exhausted()) {
    out.status = budget_status_;
    out.detail = budget_detail_;
  } else if (budget_active_ && out.fired >= budget_.max_firings &&
             EnvGetNextActivation(env_, nullptr)) {
    out.status = RunStatus::firing_limit;
    out.detail = "stopped after " + std::to_string(out.fired) + " rule firings (limit " +
                 std::to_string(budget_.max_firings) + ")";
  } else if (GetEvaluationError(env_) || GetHaltExecution(env_)) {
    out.status = RunStatus::error;
    for (size_t i = before; i < messages_.size(); ++i)
      if (messages_[i].channel == "werror") out.detail += messages_[i].text;
    if (out.detail.empty()) out.detail = "CLIPS stopped with an evaluation error";
    SetEvaluationError(env_, FALSE);
    SetHaltExecution(env_, FALSE);
  }
  return out;
}

std::string Environment::errors_text() const {
  std::string out;
  for (const auto& m : messages_)
    if (m.channel == "werror") out += m.text;
  return out;
}

long Environment::memory_used() const {
  return EnvMemUsed(env_);
}

}  // namespace perfsage::engine::clips

#include "engine/clips/sandbox.h"

#include <algorithm>
#include <iterator>
#include <string>
#include <vector>

extern "C" {
#include <clips/clips.h>
}

namespace perfsage::engine::clips {
namespace {

// Pure functions over values and facts: arithmetic, comparison, logic, strings,
// multifields, bounded iteration, fact queries, and the few actions the compiled
// rules themselves need (assert, printout to the captured router).
constexpr std::string_view kAllowed[] = {"!=",
                                         "*",
                                         "**",
                                         "+",
                                         "-",
                                         "/",
                                         "<",
                                         "<=",
                                         "<>",
                                         "=",
                                         ">",
                                         ">=",
                                         "abs",
                                         "acos",
                                         "acosh",
                                         "acot",
                                         "acoth",
                                         "acsc",
                                         "acsch",
                                         "and",
                                         "any-factp",
                                         "asec",
                                         "asech",
                                         "asin",
                                         "asinh",
                                         "assert",
                                         "atan",
                                         "atanh",
                                         "bind",
                                         "break",
                                         "cos",
                                         "cosh",
                                         "cot",
                                         "coth",
                                         "create$",
                                         "csc",
                                         "csch",
                                         "deg-grad",
                                         "deg-rad",
                                         "delete$",
                                         "delete-member$",
                                         "div",
                                         "do-for-all-facts",
                                         "do-for-fact",
                                         "eq",
                                         "evenp",
                                         "exp",
                                         "expand$",
                                         "explode$",
                                         "fact-existp",
                                         "fact-index",
                                         "fact-relation",
                                         "fact-slot-names",
                                         "fact-slot-value",
                                         "find-all-facts",
                                         "find-fact",
                                         "first$",
                                         "float",
                                         "floatp",
                                         "foreach",
                                         "grad-deg",
                                         "halt",
                                         "if",
                                         "implode$",
                                         "insert$",
                                         "integer",
                                         "integerp",
                                         "length",
                                         "length$",
                                         "lexemep",
                                         "log",
                                         "log10",
                                         "lowcase",
                                         "max",
                                         "member",
                                         "member$",
                                         "min",
                                         "mod",
                                         "multifieldp",
                                         "mv-append",
                                         "mv-delete",
                                         "mv-replace",
                                         "mv-subseq",
                                         "neq",
                                         "not",
                                         "nth",
                                         "nth$",
                                         "numberp",
                                         "oddp",
                                         "or",
                                         "pi",
                                         "pointerp",
                                         "printout",
                                         "progn",
                                         "progn$",
                                         "rad-deg",
                                         "replace$",
                                         "replace-member$",
                                         "rest$",
                                         "return",
                                         "round",
                                         "sec",
                                         "sech",
                                         "sequencep",
                                         "sin",
                                         "sinh",
                                         "sqrt",
                                         "str-cat",
                                         "str-compare",
                                         "str-explode",
                                         "str-implode",
                                         "str-index",
                                         "str-length",
                                         "string-to-field",
                                         "stringp",
                                         "sub-string",
                                         "subseq$",
                                         "subset",
                                         "subsetp",
                                         "switch",
                                         "sym-cat",
                                         "symbolp",
                                         "tan",
                                         "tanh",
                                         "type",
                                         "upcase",
                                         "wordp"};

struct Reason {
  std::string_view reason;
  std::vector<std::string_view> names;
};

const std::vector<Reason>& reasons() {
  static const std::vector<Reason> r = {
      {"touches the operating system or files",
       {"system", "open", "close", "remove", "rename", "dribble-on", "dribble-off", "save", "bsave",
        "save-facts", "save-instances", "bsave-instances", "constructs-to-c", "operating-system",
        "set-locale", "put-char"}},
      {"loads or builds code",
       {"load", "load*", "batch", "batch*", "bload", "load-facts", "load-instances",
        "bload-instances", "restore-instances", "build", "eval", "funcall", "call"}},
      {"reads input and could block", {"read", "readline", "get-char", "read-number"}},
      {"ends the process", {"exit"}},
      {"writes through C printf formats whose widths overflow CLIPS's buffers (use message "
       "templates such as {?x:us})",
       {"format"}},
      {"loops without a bound", {"while", "loop-for-count"}},
      {"is not deterministic", {"random", "seed", "time", "timer", "gensym", "gensym*", "setgen"}},
      {"changes the engine or its constructs",
       {"clear",
        "reset",
        "run",
        "focus",
        "undefrule",
        "undeftemplate",
        "undeffacts",
        "undefglobal",
        "undeffunction",
        "undefgeneric",
        "undefmethod",
        "undefclass",
        "undefinstances",
        "undefmessage-handler",
        "conserve-mem",
        "release-mem",
        "set-strategy",
        "set-fact-duplication",
        "retract",
        "modify",
        "duplicate",
        "assert-string",
        "str-assert"}},
  };
  return r;
}

}  // namespace

bool sandbox_allows(std::string_view name) {
  return std::find(std::begin(kAllowed), std::end(kAllowed), name) != std::end(kAllowed);
}

std::string sandbox_reason(std::string_view name) {
  for (const auto& r : reasons())
    if (std::find(r.names.begin(), r.names.end(), name) != r.names.end())
      return std::string(r.reason);
  return "is not on the list of functions packs may use";
}

void apply_sandbox(void* env) {
  // Collect first: undefining while walking the list would invalidate it.
  std::vector<std::string> remove;
  for (FunctionDefinition* f = GetFunctionList(env); f; f = f->next) {
    std::string name = ValueToString(f->callFunctionName);
    // Names in parentheses are internal helpers the parsers emit (query-fact, ...).
    if (!name.empty() && name.front() == '(') continue;
    if (!sandbox_allows(name)) remove.push_back(std::move(name));
  }
  for (const auto& name : remove) UndefineFunction(env, name.c_str());
}

}  // namespace perfsage::engine::clips

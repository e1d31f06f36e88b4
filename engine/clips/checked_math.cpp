#include "engine/clips/checked_math.h"

#include <climits>
#include <cmath>

extern "C" {
#include <clips/clips.h>
}

namespace perfsage::engine::clips {
namespace {

void fail(void* env, const char* fn, const char* what) {
  PrintErrorID(env, "PERFSAGE", 1, FALSE);
  EnvPrintRouter(env, WERROR, what);
  EnvPrintRouter(env, WERROR, " in ");
  EnvPrintRouter(env, WERROR, fn);
  EnvPrintRouter(env, WERROR, " function.\n");
  SetEvaluationError(env, TRUE);
}

// Reads argument i as a number; false (and an evaluation error) when it is not one.
bool number_arg(void* env, const char* fn, int i, DATA_OBJECT& out) {
  return EnvArgTypeCheck(env, fn, i, INTEGER_OR_FLOAT, &out) != FALSE;
}

long long as_integer(const DATA_OBJECT& d) {
  if (GetType(d) == INTEGER) return DOToLong(d);
  double v = DOToDouble(d);
  // Converting a float outside long long's range is undefined: clamp first.
  if (!(v == v)) return 0;
  if (v >= 9.2e18) return LLONG_MAX;
  if (v <= -9.2e18) return LLONG_MIN;
  return static_cast<long long>(v);
}

long long checked_div(void* env) {
  const int n = EnvRtnArgCount(env);
  DATA_OBJECT arg;
  if (n < 2 || !number_arg(env, "div", 1, arg)) return 0;
  long long acc = as_integer(arg);
  for (int i = 2; i <= n; ++i) {
    if (!number_arg(env, "div", i, arg)) return 0;
    long long d = as_integer(arg);
    if (d == 0) {
      fail(env, "div", "Attempt to divide by zero");
      return 0;
    }
    if (acc == LLONG_MIN && d == -1) {
      fail(env, "div", "Integer overflow");
      return 0;
    }
    acc /= d;
  }
  return acc;
}

void checked_mod(void* env, DATA_OBJECT_PTR result) {
  SetpType(result, INTEGER);
  SetpValue(result, EnvAddLong(env, 0));
  DATA_OBJECT a, b;
  if (EnvRtnArgCount(env) != 2 || !number_arg(env, "mod", 1, a) || !number_arg(env, "mod", 2, b))
    return;
  if (GetType(a) == INTEGER && GetType(b) == INTEGER) {
    long long x = DOToLong(a), y = DOToLong(b);
    if (y == 0) return fail(env, "mod", "Attempt to divide by zero");
    // LLONG_MIN % -1 traps like the division; its value is 0.
    SetpValue(result, EnvAddLong(env, y == -1 ? 0 : x % y));
    return;
  }
  double x = GetType(a) == INTEGER ? static_cast<double>(DOToLong(a)) : DOToDouble(a);
  double y = GetType(b) == INTEGER ? static_cast<double>(DOToLong(b)) : DOToDouble(b);
  if (y == 0) return fail(env, "mod", "Attempt to divide by zero");
  SetpType(result, FLOAT);
  SetpValue(result, EnvAddDouble(env, x - std::trunc(x / y) * y));
}

}  // namespace

void define_checked_math(void* env) {
  UndefineFunction(env, "div");
  UndefineFunction(env, "mod");
  EnvDefineFunction2(env, "div", 'g', PTIEF checked_div, "perfsage_checked_div", "2*n");
  EnvDefineFunction2(env, "mod", 'n', PTIEF checked_mod, "perfsage_checked_mod", "22n");
}

}  // namespace perfsage::engine::clips

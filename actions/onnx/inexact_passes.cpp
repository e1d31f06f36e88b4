// Passes whose rewrite may change the model's outputs: removing a Cast round trip (exact when
// the middle type holds every value of the outer one, otherwise it drops a rounding step) and
// replacing a decomposed Mish by a cheaper activation. Outputs change only with allow_inexact;
// otherwise the match is proposed with a statement of what would change.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "actions/onnx/passes.h"

namespace perfsage::actions::onnx {
namespace {

struct TypeInfo {
  const char* name;
  bool is_float, is_signed;
  int bits;                      // integers: width; floats: significand bits (with the implicit 1)
  int max_exp = 0, min_exp = 0;  // floats: exponent of the largest normal, of the least subnormal
  double max_value = 0;
};

std::optional<TypeInfo> type_info(int t) {
  switch (t) {
    case ox::TensorProto::FLOAT16:
      return TypeInfo{"float16", true, true, 11, 15, -24, 65504.0};
    case ox::TensorProto::BFLOAT16:
      return TypeInfo{"bfloat16", true, true, 8, 127, -133, 3.39e38};
    case ox::TensorProto::FLOAT:
      return TypeInfo{"float", true, true, 24, 127, -149, 3.40e38};
    case ox::TensorProto::DOUBLE:
      return TypeInfo{"double", true, true, 53, 1023, -1074, std::numeric_limits<double>::max()};
    case ox::TensorProto::INT8:
      return TypeInfo{"int8", false, true, 8};
    case ox::TensorProto::INT16:
      return TypeInfo{"int16", false, true, 16};
    case ox::TensorProto::INT32:
      return TypeInfo{"int32", false, true, 32};
    case ox::TensorProto::INT64:
      return TypeInfo{"int64", false, true, 64};
    case ox::TensorProto::UINT8:
      return TypeInfo{"uint8", false, false, 8};
    case ox::TensorProto::UINT16:
      return TypeInfo{"uint16", false, false, 16};
    case ox::TensorProto::UINT32:
      return TypeInfo{"uint32", false, false, 32};
    case ox::TensorProto::UINT64:
      return TypeInfo{"uint64", false, false, 64};
    default:
      return std::nullopt;
  }
}

// Every value of `from` is a value of `to`, so casting there and back is the identity.
bool holds_all(const TypeInfo& to, const TypeInfo& from) {
  if (from.is_float) {
    return to.is_float && to.bits >= from.bits && to.max_exp >= from.max_exp &&
           to.min_exp <= from.min_exp;
  }
  int magnitude = from.is_signed ? from.bits - 1 : from.bits;
  if (to.is_float) return to.bits >= magnitude;
  if (from.is_signed && !to.is_signed) return false;
  return to.is_signed == from.is_signed ? to.bits >= from.bits : to.bits > from.bits;
}

std::string format(const char* fmt, double a, double b = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, fmt, a, b);
  return buf;
}

double mish(double x) {
  return x * std::tanh(std::log1p(std::exp(x)));
}

struct Replacement {
  const char* op;
  float alpha = 0;  // LeakyRelu
  int min_opset = 1;
  double (*f)(double);
  std::string text;
};

std::optional<Replacement> replacement_for(const std::string& name) {
  if (name.empty() || name == "LeakyRelu") {
    return Replacement{"LeakyRelu", 0.1f, 6, [](double x) { return x < 0 ? 0.1 * x : x; },
                       "LeakyRelu(alpha=0.1)"};
  }
  if (name == "Relu") {
    return Replacement{"Relu", 0, 6, [](double x) { return x < 0 ? 0.0 : x; }, "Relu"};
  }
  if (name == "HardSwish") {
    return Replacement{"HardSwish", 0, 14,
                       [](double x) { return x * std::clamp(x / 6 + 0.5, 0.0, 1.0); }, "HardSwish"};
  }
  return std::nullopt;
}

}  // namespace

void remove_cast_round_trip(GraphEditor& g, const PassScope& scope, PassResult& out) {
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int second = 0; second < g.node_count(); ++second) {
      if (!g.is_op(second, "Cast") || g.touched(second)) continue;
      int first = g.producer(g.node(second).input(0));
      if (first < 0 || !g.is_op(first, "Cast") || !scope.covers(g, {first, second})) continue;
      const std::string& x = g.node(first).input(0);
      auto outer = g.elem_type(x);
      auto middle = type_info(int_attribute(g.node(first), "to", 0));
      auto back = int_attribute(g.node(second), "to", 0);
      std::vector<std::string> names = {g.node_name(first), g.node_name(second)};
      if (!outer || *outer != back) continue;  // not a round trip (or the type is unknown)
      auto from = type_info(*outer);
      if (!from || !middle) continue;
      bool exact = holds_all(*middle, *from);
      std::string what;
      if (exact) {
        what = std::string("removed a Cast round trip ") + from->name + " -> " + middle->name +
               " -> " + from->name + " (" + middle->name + " holds every " + from->name + " value)";
      } else if (!from->is_float || !middle->is_float) {
        notes.skipped.push_back({names, std::string("Cast ") + from->name + " -> " + middle->name +
                                            " -> " + from->name +
                                            (middle->is_float ? "" : " truncates or wraps values") +
                                            (from->is_float ? "" : " rounds integers") +
                                            "; removing it would change values beyond rounding"});
        continue;
      } else {
        what = std::string("removes the rounding of ") + x + " to " + middle->name +
               " and back: outputs change by up to " + middle->name + "'s rounding (" +
               format("relative %.2g", std::ldexp(1.0, -middle->bits)) + ")" +
               (middle->max_value < from->max_value
                    ? format(", and values beyond +/-%g no longer overflow to infinity",
                             middle->max_value)
                    : std::string());
        if (!scope.allow_inexact) {
          notes.proposed.push_back({names, what, false});
          continue;
        }
      }
      auto removal = remove_inverse_pair(g, first, second, notes);
      if (removal == PairRemoval::deferred || removal == PairRemoval::refused) continue;
      out.applied.push_back({names, what, exact});
      ++applied;
    }
    return applied;
  });
}

void replace_activation(GraphEditor& g, const PassScope& scope, PassResult& out) {
  if (!scope.pattern.empty() && scope.pattern != "mish") {
    out.skipped.push_back(
        {{}, "no rewrite for the activation pattern '" + scope.pattern + "' (known: mish)"});
    return;
  }
  auto repl = replacement_for(scope.replacement);
  if (!repl) {
    out.skipped.push_back(
        {{},
         "unknown replacement '" + scope.replacement + "' (known: LeakyRelu, Relu, HardSwish)"});
    return;
  }
  in_rounds(g, out, [&](RoundNotes& notes) {
    int applied = 0;
    for (int mul = 0; mul < g.node_count(); ++mul) {
      // Mish(x) = x * tanh(softplus(x)): Softplus(x) -> Tanh -> Mul(x, tanh) in either order.
      if (!g.is_op(mul, "Mul") || g.node(mul).input_size() != 2 || g.touched(mul)) continue;
      int tanh = -1, sp = -1, side = -1;
      for (int k = 0; k < 2 && sp < 0; ++k) {
        int t = g.producer(g.node(mul).input(k));
        if (t < 0 || !g.is_op(t, "Tanh")) continue;
        int s = g.producer(g.node(t).input(0));
        if (s >= 0 && g.is_op(s, "Softplus") && g.node(s).input(0) == g.node(mul).input(1 - k)) {
          tanh = t, sp = s, side = k;
        }
      }
      if (sp < 0 || !scope.covers(g, {sp, tanh, mul})) continue;
      std::vector<std::string> names = {g.node_name(sp), g.node_name(tanh), g.node_name(mul)};
      if (!g.only_feeds(g.node(mul).input(side), mul) ||
          !g.only_feeds(g.node(tanh).input(0), tanh)) {
        notes.skipped.push_back({names, "the Softplus or Tanh output has other readers"});
        continue;
      }
      if (g.opset() < repl->min_opset) {
        notes.skipped.push_back(
            {names, std::string(repl->op) + " needs opset " + std::to_string(repl->min_opset)});
        continue;
      }
      std::string what = "replaces Mish(x) = x*tanh(softplus(x)) by " + repl->text +
                         ": outputs change (" + format("x=-1: %.3f becomes ", mish(-1.0)) +
                         format("%.3f; ", repl->f(-1.0)) + format("x=1: %.3f becomes ", mish(1.0)) +
                         format("%.3f", repl->f(1.0)) +
                         "); validate accuracy or retrain before deploying";
      if (!scope.allow_inexact) {
        notes.proposed.push_back({names, what, false});
        continue;
      }
      std::vector<int> involved = {sp, tanh, mul};
      if (g.any_touched(involved)) continue;
      auto& node = g.mutable_node(sp);
      std::string output = g.node(mul).output(0);
      node.set_op_type(repl->op);
      g.set_node_name(sp, g.node_name(mul));
      node.clear_attribute();
      if (repl->alpha != 0) {
        auto* a = node.add_attribute();
        a->set_name("alpha");
        a->set_type(ox::AttributeProto::FLOAT);
        a->set_f(repl->alpha);
      }
      node.set_output(0, output);
      g.remove_node(tanh);
      g.remove_node(mul);
      g.touch(sp);
      out.applied.push_back({names, what, false});
      ++applied;
    }
    return applied;
  });
}

}  // namespace perfsage::actions::onnx

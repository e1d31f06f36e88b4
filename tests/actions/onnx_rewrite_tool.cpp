// Test driver for the onnx_rewrite passes, used by check_onnx_rewrite.py:
//   onnx_rewrite_tool IN.onnx OUT.onnx [--allow-inexact] PASS[=NODE,NODE...][:REPLACEMENT] ...
// Writes the rewritten model to OUT and one tab-separated line per note on stdout:
//   applied|proposed|skipped <TAB> pass <TAB> node,node <TAB> text
#include <fstream>
#include <iostream>

#include "actions/onnx_rewrite.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::cerr << "usage: onnx_rewrite_tool IN OUT [--allow-inexact] PASS[=NODES][:REPL]...\n";
    return 2;
  }
  using namespace perfsage::actions;
  bool allow_inexact = false;
  std::vector<OnnxRewriteStep> steps;
  for (int i = 3; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--allow-inexact") {
      allow_inexact = true;
      continue;
    }
    OnnxRewriteStep step;
    if (auto colon = arg.find(':'); colon != std::string::npos) {
      step.replacement = arg.substr(colon + 1);
      arg.resize(colon);
    }
    if (auto eq = arg.find('='); eq != std::string::npos) {
      std::string nodes = arg.substr(eq + 1);
      arg.resize(eq);
      for (size_t start = 0; start <= nodes.size();) {
        size_t comma = nodes.find(',', start);
        if (comma == std::string::npos) comma = nodes.size();
        if (comma > start) step.nodes.push_back(nodes.substr(start, comma - start));
        start = comma + 1;
      }
    }
    step.pass = arg;
    steps.push_back(step);
  }
  try {
    auto model = read_onnx_model(argv[1]);
    auto report = rewrite_onnx(model, steps, allow_inexact);
    std::ofstream(argv[2], std::ios::binary) << serialize_onnx_model(model);
    auto print = [](const char* what, const std::vector<OnnxRewriteNote>& notes) {
      for (const auto& n : notes) {
        std::string nodes;
        for (const auto& x : n.nodes) nodes += (nodes.empty() ? "" : ",") + x;
        std::cout << what << '\t' << n.pass << '\t' << nodes << '\t' << n.text << '\n';
      }
    };
    print("applied", report.applied);
    print("proposed", report.proposed);
    print("skipped", report.skipped);
  } catch (const std::exception& e) {
    std::cerr << "onnx_rewrite_tool: " << e.what() << "\n";
    return 1;
  }
  return 0;
}

// Graph patterns declared in data (knowledge_bases/patterns/*.yaml), so packs can add fusion
// patterns without C++. A pattern is a small DAG of op-type sets; a chain is the special case
// of a path. See docs/packs/ub_fusion.md for the file format.
#pragma once

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace perfsage::analyzers::patterns {

struct PatternError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct PatternNode {
  std::string id;
  std::set<std::string> types;  // op types accepted here (GE and ONNX spellings)
  bool optional = false;        // chain elements written with a trailing '?'
};

struct Pattern {
  std::string name;
  std::string kind;  // ub_fusion | graph_fusion | aipp | ... (free text, copied to facts)
  std::string pass;  // fusion pass that fuses it, when known (for fusion_switch actions)
  std::string fix;   // what the user can do when no pass applies
  std::vector<PatternNode> nodes;
  std::vector<std::pair<size_t, size_t>> edges;  // indices into nodes
  bool first_layer = false;  // the last node must be the first of its types in the graph
  bool chain = false;        // declared as a chain (usable on task sequences)
  std::string source;        // file:line, for messages
};

// Parses one YAML document: `patterns: [ {name, kind, pass?, fix?, first_layer?,
// chain: [T|T2, T3?, ...]} | {..., nodes: {id: "T|T2"}, edges: [[a, b], ...]} ]`.
// Throws PatternError naming the file and line.
std::vector<Pattern> parse_patterns(const std::string& yaml_text, const std::string& file);

// Reads every *.yaml under `dir` in name order; a missing directory gives no patterns.
std::vector<Pattern> load_patterns(const std::filesystem::path& dir);

// Expands the optional chain elements: each variant is a plain chain (without optional
// nodes); variants with fewer than two nodes are dropped.
std::vector<Pattern> expand_optional(const Pattern& p);

}  // namespace perfsage::analyzers::patterns

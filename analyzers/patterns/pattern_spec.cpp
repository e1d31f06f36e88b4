#include "analyzers/patterns/pattern_spec.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

namespace perfsage::analyzers::patterns {
namespace {

std::string where(const std::string& file, const YAML::Node& n) {
  return file + ":" + std::to_string(n.Mark().line + 1);
}

[[noreturn]] void fail(const std::string& file, const YAML::Node& n, const std::string& what) {
  throw PatternError(where(file, n) + ": " + what);
}

std::string scalar(const std::string& file, const YAML::Node& n, const std::string& what) {
  if (!n || !n.IsScalar()) fail(file, n, what + " must be a string");
  return n.as<std::string>();
}

// "Conv2D|Conv?" -> {Conv2D, Conv}, optional.
PatternNode parse_types(const std::string& file, const YAML::Node& n, std::string id) {
  std::string text = scalar(file, n, "a pattern node");
  PatternNode node;
  node.id = std::move(id);
  if (!text.empty() && text.back() == '?') {
    node.optional = true;
    text.pop_back();
  }
  std::stringstream ss(text);
  std::string t;
  while (std::getline(ss, t, '|')) {
    t.erase(0, t.find_first_not_of(" \t"));
    t.erase(t.find_last_not_of(" \t") + 1);
    if (!t.empty()) node.types.insert(t);
  }
  if (node.types.empty()) fail(file, n, "a pattern node needs at least one op type");
  return node;
}

Pattern parse_one(const std::string& file, const YAML::Node& n) {
  if (!n.IsMap()) fail(file, n, "each pattern must be a map");
  Pattern p;
  p.source = where(file, n);
  p.name = scalar(file, n["name"], "'name'");
  p.kind = n["kind"] ? scalar(file, n["kind"], "'kind'") : "ub_fusion";
  if (n["pass"]) p.pass = scalar(file, n["pass"], "'pass'");
  if (n["fix"]) p.fix = scalar(file, n["fix"], "'fix'");
  if (n["first_layer"]) p.first_layer = n["first_layer"].as<bool>(false);
  for (const auto& kv : n) {
    static const std::set<std::string> known = {"name",        "kind",  "pass",  "fix",
                                                "first_layer", "chain", "nodes", "edges"};
    if (!known.count(kv.first.as<std::string>()))
      fail(file, kv.first, "unknown pattern key '" + kv.first.as<std::string>() + "'");
  }
  if (n["chain"] && n["nodes"]) fail(file, n, "pattern '" + p.name + "' has both chain and nodes");
  if (n["chain"]) {
    if (!n["chain"].IsSequence()) fail(file, n["chain"], "'chain' must be a list of op types");
    p.chain = true;
    for (size_t i = 0; i < n["chain"].size(); ++i) {
      p.nodes.push_back(
          parse_types(file, n["chain"][i], std::string("n").append(std::to_string(i))));
      if (i > 0) p.edges.emplace_back(i - 1, i);
    }
  } else if (n["nodes"]) {
    if (!n["nodes"].IsMap()) fail(file, n["nodes"], "'nodes' must map node ids to op types");
    std::map<std::string, size_t> index;
    for (const auto& kv : n["nodes"]) {
      std::string id = kv.first.as<std::string>();
      index[id] = p.nodes.size();
      p.nodes.push_back(parse_types(file, kv.second, id));
      if (p.nodes.back().optional) fail(file, kv.second, "optional nodes are for chains only");
    }
    const auto& edges = n["edges"];
    if (!edges || !edges.IsSequence()) fail(file, n, "pattern '" + p.name + "' needs 'edges'");
    for (const auto& e : edges) {
      if (!e.IsSequence() || e.size() != 2) fail(file, e, "an edge is [from, to]");
      auto a = index.find(scalar(file, e[0], "edge end"));
      auto b = index.find(scalar(file, e[1], "edge end"));
      if (a == index.end() || b == index.end()) fail(file, e, "edge names an unknown node");
      p.edges.emplace_back(a->second, b->second);
    }
  } else {
    fail(file, n, "pattern '" + p.name + "' needs 'chain' or 'nodes'");
  }
  if (p.nodes.size() < 2) fail(file, n, "pattern '" + p.name + "' needs at least two nodes");
  if (p.nodes.size() > 8) fail(file, n, "pattern '" + p.name + "' has more than 8 nodes");
  return p;
}

}  // namespace

std::vector<Pattern> parse_patterns(const std::string& yaml_text, const std::string& file) {
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::Exception& e) {
    throw PatternError(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  if (!root.IsMap() || !root["patterns"] || !root["patterns"].IsSequence())
    throw PatternError(file + ": expected a map with a 'patterns' list");
  std::vector<Pattern> out;
  try {
    for (const auto& n : root["patterns"]) out.push_back(parse_one(file, n));
  } catch (const YAML::Exception& e) {
    throw PatternError(file + ":" + std::to_string(e.mark.line + 1) + ": " + e.msg);
  }
  return out;
}

std::vector<Pattern> load_patterns(const std::filesystem::path& dir) {
  std::vector<Pattern> out;
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec)) return out;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec))
    if (e.path().extension() == ".yaml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) throw PatternError(f.string() + ": cannot be read");
    std::stringstream ss;
    ss << in.rdbuf();
    auto ps = parse_patterns(ss.str(), f.string());
    out.insert(out.end(), ps.begin(), ps.end());
  }
  return out;
}

std::vector<Pattern> expand_optional(const Pattern& p) {
  if (!p.chain) return {p};
  std::vector<size_t> opt;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].optional) opt.push_back(i);
  std::vector<Pattern> out;
  for (size_t mask = 0; mask < (size_t{1} << opt.size()); ++mask) {
    Pattern v = p;
    v.nodes.clear();
    v.edges.clear();
    for (size_t i = 0, k = 0; i < p.nodes.size(); ++i) {
      bool skip = false;
      if (k < opt.size() && opt[k] == i) skip = !((mask >> k++) & 1);
      if (skip) continue;
      v.nodes.push_back(p.nodes[i]);
      v.nodes.back().optional = false;
      if (v.nodes.size() > 1) v.edges.emplace_back(v.nodes.size() - 2, v.nodes.size() - 1);
    }
    if (v.nodes.size() >= 2) out.push_back(std::move(v));
  }
  return out;
}

}  // namespace perfsage::analyzers::patterns

#include "analyzers/graph/name_match.h"

#include <algorithm>
#include <cctype>

namespace perfsage::analyzers::graph {
namespace {
bool alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c));
}
bool digit(char c) {
  return std::isdigit(static_cast<unsigned char>(c));
}
bool alpha(char c) {
  return std::isalpha(static_cast<unsigned char>(c));
}
bool lower(char c) {
  return std::islower(static_cast<unsigned char>(c));
}
bool upper(char c) {
  return std::isupper(static_cast<unsigned char>(c));
}

// Shorter embedded names ("Add", "a_1") match too much by accident.
constexpr size_t kMinEmbeddedName = 4;
constexpr std::string_view kTrans = "trans_";
}  // namespace

const char* match_kind_name(MatchKind k) {
  switch (k) {
    case MatchKind::exact:
      return "exact";
    case MatchKind::trans_prefix:
      return "trans_prefix";
    case MatchKind::original:
      return "original";
    case MatchKind::fused:
      return "fused";
  }
  return "?";
}

bool starts_word(std::string_view s, size_t i) {
  if (i == 0) return true;
  char p = s[i - 1], c = s[i];
  return !alnum(p) || (digit(p) && alpha(c)) || (lower(p) && upper(c));
}

bool ends_word(std::string_view s, size_t j) {
  if (j == s.size()) return true;
  char p = s[j - 1], c = s[j];
  return !alnum(c) || (digit(p) && alpha(c)) || (lower(p) && upper(c));
}

NameIndex::NameIndex(std::vector<NodeRef> nodes,
                     const std::vector<std::vector<std::string>>& original_names)
    : nodes_(std::move(nodes)) {
  for (size_t i = 0; i < nodes_.size(); ++i) {
    by_name_[nodes_[i].name].push_back(i);
    if (i < original_names.size()) {
      for (const auto& o : original_names[i]) {
        if (o != nodes_[i].name) by_original_[o].push_back(i);
      }
    }
  }
}

std::vector<NameMatch> NameIndex::lookup(std::string_view name, MatchKind kind) const {
  const auto& index = kind == MatchKind::original ? by_original_ : by_name_;
  std::vector<NameMatch> out;
  auto it = index.find(std::string(name));
  if (it != index.end()) {
    for (size_t n : it->second) out.push_back({n, kind});
  }
  return out;
}

std::vector<NameMatch> NameIndex::match(std::string_view op) const {
  if (auto m = lookup(op, MatchKind::exact); !m.empty()) return m;
  if (op.substr(0, kTrans.size()) == kTrans) {
    if (auto m = lookup(op.substr(kTrans.size()), MatchKind::trans_prefix); !m.empty()) return m;
  } else if (auto m = lookup(std::string(kTrans) + std::string(op), MatchKind::trans_prefix);
             !m.empty()) {
    return m;
  }
  if (auto m = lookup(op, MatchKind::original); !m.empty()) return m;

  // Embedded names: every word-bounded proper substring that is a node name.
  std::vector<NameMatch> out;
  for (size_t i = 0; i < op.size(); ++i) {
    if (!starts_word(op, i)) continue;
    for (size_t j = i + kMinEmbeddedName; j <= op.size(); ++j) {
      if (j - i == op.size() || !ends_word(op, j)) continue;
      auto hits = lookup(op.substr(i, j - i), MatchKind::exact);
      for (auto& h : hits) out.push_back({h.node, MatchKind::fused});
    }
  }
  std::sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.node < b.node; });
  out.erase(std::unique(out.begin(), out.end(), [](auto& a, auto& b) { return a.node == b.node; }),
            out.end());
  return out;
}

}  // namespace perfsage::analyzers::graph

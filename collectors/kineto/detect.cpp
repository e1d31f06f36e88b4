// Recognising Kineto traces by file name and the first bytes of content.
#include <string_view>

#include "collectors/kineto/kineto_collector.h"

namespace perfsage::collectors::kineto {
namespace {

bool contains(std::string_view s, std::string_view what) {
  return s.find(what) != std::string_view::npos;
}

// `"key": "value"` with or without the space Kineto writes after the colon.
bool has_pair(std::string_view s, std::string_view key, std::string_view value) {
  for (size_t p = s.find(key); p != std::string_view::npos; p = s.find(key, p + 1)) {
    if (p == 0 || s[p - 1] != '"') continue;
    size_t v = p + key.size();
    if (s.substr(v, 2) != "\":") continue;
    v += 2;
    while (v < s.size() && (s[v] == ' ' || s[v] == '\t')) ++v;
    if (v < s.size() && s[v] == '"' && s.substr(v + 1, value.size()) == value &&
        s.substr(v + 1 + value.size(), 1) == "\"")
      return true;
  }
  return false;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

}  // namespace

int detect_kineto(const FileProbe& probe) {
  std::string_view head = probe.head;
  size_t i = 0;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  if (head.substr(i, 3) == "\xEF\xBB\xBF") i += 3;
  while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r')) ++i;
  if (i >= head.size() || (head[i] != '{' && head[i] != '[')) return 0;
  // Ascend timelines are Chrome traces too; their collector owns them.
  if (contains(head, "Ascend Hardware") || contains(head, "\"CANN\"") ||
      contains(head, "Overlap Analysis") || contains(head, "\"AscendCL\""))
    return 0;
  std::string name = probe.path.filename().string();
  bool json_name = ends_with(name, ".json") || ends_with(name, ".json.gz") ||
                   ends_with(name, ".JSON") || contains(name, ".pt.trace");
  bool kineto = contains(head, "\"schemaVersion\"") || contains(head, "\"deviceProperties\"") ||
                contains(head, "\"distributedInfo\"") || has_pair(head, "cat", "kernel") ||
                has_pair(head, "cat", "cpu_op") || has_pair(head, "cat", "cuda_runtime") ||
                has_pair(head, "cat", "user_annotation") || contains(head, "ProfilerStep#") ||
                contains(head, "PyTorch Profiler");
  bool chrome = contains(head, "\"traceEvents\"") || contains(head, "\"ph\":");
  if (kineto && (chrome || contains(name, ".pt.trace") || json_name)) return 80;
  if (chrome) return json_name ? 50 : 40;
  return 0;
}

}  // namespace perfsage::collectors::kineto

#include "daemon/run_layout.h"

#include <fnmatch.h>

#include <charconv>

#include "app/front_end_names.h"
#include "app/job_identity.h"

namespace perfsage::daemon {
namespace fs = std::filesystem;
namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(sep, start);
    if (end == std::string::npos) end = text.size();
    if (end > start) out.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// The components of `path` below `root`, or nullopt when it is not below it.
std::optional<std::vector<std::string>> relative_components(const fs::path& root,
                                                            const fs::path& path) {
  auto rel = path.lexically_normal().lexically_relative(root.lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return std::nullopt;
  std::vector<std::string> out;
  for (const auto& c : rel) {
    if (c == ".") continue;
    out.push_back(c.string());
  }
  if (out.empty()) return std::nullopt;
  return out;
}

}  // namespace

bool component_matches(const std::string& glob, const std::string& name) {
  return fnmatch(glob.c_str(), name.c_str(), FNM_PERIOD) == 0;
}

size_t glob_depth(const std::string& glob) {
  return split(glob, '/').size();
}

RunLayout::RunLayout(std::vector<WatchRoot> roots, std::vector<fs::path> own)
    : roots_(std::move(roots)) {
  for (const auto& p : own) {
    if (p.empty()) continue;
    std::error_code ec;
    own_.push_back(fs::absolute(p, ec).lexically_normal().string());
  }
}

bool RunLayout::own_output(const fs::path& path) const {
  std::error_code ec;
  const std::string p = fs::absolute(path, ec).lexically_normal().string();
  for (const auto& o : own_) {
    // The path itself, anything below it, and its companions (perf.db-wal, perf.db.queue,
    // perfsaged.log.1).
    if (p.compare(0, o.size(), o) != 0) continue;
    const std::string rest = p.substr(o.size());
    if (rest.empty() || rest[0] == '/' || rest[0] == '.' || rest == "-wal" || rest == "-shm" ||
        rest == "-journal")
      return true;
  }
  return false;
}

bool RunLayout::ignored(const fs::path& path) const {
  if (own_output(path)) return true;
  for (const auto& root : roots_) {
    auto comps = relative_components(root.path, path);
    if (!comps) continue;
    for (const auto& c : *comps) {
      if (c == kActionsFolderName) return true;
      for (const auto& g : root.ignore) {
        if (component_matches(g, c)) return true;
      }
    }
    return false;
  }
  return false;
}

std::optional<RunLocation> RunLayout::locate(const fs::path& path) const {
  for (size_t i = 0; i < roots_.size(); ++i) {
    auto comps = relative_components(roots_[i].path, path);
    if (!comps) continue;
    if (ignored(path)) return std::nullopt;
    for (const auto& glob : roots_[i].runs) {
      auto parts = split(glob, '/');
      if (parts.empty() || comps->size() < parts.size()) continue;
      bool match = true;
      for (size_t k = 0; k < parts.size() && match; ++k) {
        match = component_matches(parts[k], (*comps)[k]);
      }
      if (!match) continue;
      std::vector<std::string> run_comps(comps->begin(), comps->begin() + parts.size());
      fs::path run = roots_[i].path;
      for (const auto& c : run_comps) run /= c;
      return RunLocation{i, run.lexically_normal(), job_name(roots_[i], run_comps)};
    }
    return std::nullopt;
  }
  return std::nullopt;
}

std::string job_name(const WatchRoot& root, const std::vector<std::string>& components) {
  std::string out;
  const std::string& t = root.job;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] != '{') {
      out += t[i];
      continue;
    }
    size_t close = t.find('}', i);
    if (close == std::string::npos) {
      out += t.substr(i);
      break;
    }
    std::string key = t.substr(i + 1, close - i - 1);
    if (key == "name") {
      out += components.empty() ? "" : app::job_from_name(components.back());
    } else if (key == "root") {
      out += root.path.lexically_normal().filename().string();
    } else {
      size_t n = 0;
      std::from_chars(key.data(), key.data() + key.size(), n);
      if (n >= 1 && n <= components.size()) out += components[n - 1];
    }
    i = close;
  }
  return out;
}

std::optional<std::string> check_job_template(const std::string& tmpl, size_t depth) {
  for (size_t i = 0; i < tmpl.size(); ++i) {
    if (tmpl[i] != '{') continue;
    size_t close = tmpl.find('}', i);
    if (close == std::string::npos) return "unclosed '{' in job template '" + tmpl + "'";
    std::string key = tmpl.substr(i + 1, close - i - 1);
    if (key != "name" && key != "root") {
      size_t n = 0;
      auto [end, ec] = std::from_chars(key.data(), key.data() + key.size(), n);
      if (ec != std::errc() || end != key.data() + key.size() || n == 0) {
        return "unknown placeholder {" + key + "} in job template (use {1}..{n}, {name}, {root})";
      }
      if (n > depth) {
        return "job template uses {" + key + "} but runs are only " +
               app::count_text(static_cast<int64_t>(depth), "level") + " deep";
      }
    }
    i = close;
  }
  return std::nullopt;
}

}  // namespace perfsage::daemon

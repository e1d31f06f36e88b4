#include "collectors/ascend/layout.h"

#include <algorithm>
#include <regex>
#include <string>
#include <vector>

namespace perfsage::collectors::ascend {
namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_rank_dir_name(const std::string& name) {
  return ends_with(name, "_ascend_pt") || ends_with(name, "_ascend_ms");
}

std::optional<int64_t> number_after(const std::string& name, const std::regex& re) {
  std::smatch m;
  if (!std::regex_match(name, m, re)) return std::nullopt;
  try {
    return std::stoll(m[1].str());
  } catch (const std::exception&) {
    return std::nullopt;  // too many digits to be a rank
  }
}

// Rank of a `*_ascend_pt` folder: `profiler_info_N.json` inside it, else its index among the
// framework-profiler folders of its parent (sorted by name, i.e. by worker and timestamp).
int64_t rank_of_rank_dir(const fs::path& dir) {
  static const std::regex info_re(R"(profiler_info_(\d+)\.json)");
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (auto n = number_after(it->path().filename().string(), info_re)) return *n;
  }
  std::vector<std::string> siblings;
  for (fs::directory_iterator it(dir.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    std::string name = it->path().filename().string();
    if (is_rank_dir_name(name) && it->is_directory(ec)) siblings.push_back(name);
  }
  std::sort(siblings.begin(), siblings.end());
  auto pos = std::find(siblings.begin(), siblings.end(), dir.filename().string());
  return pos == siblings.end() ? 0 : static_cast<int64_t>(pos - siblings.begin());
}

bool exists_file(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec) || fs::is_regular_file(p.string() + ".gz", ec);
}

}  // namespace

std::string base_name(const fs::path& file) {
  std::string name = file.filename().string();
  if (ends_with(name, ".gz")) name.resize(name.size() - 3);
  return name;
}

Location locate(const fs::path& file) {
  static const std::regex rank_re(R"(rank[_-]?(\d+))", std::regex::icase);
  static const std::regex device_re(R"(device_(\d+))");
  Location loc;
  std::optional<int64_t> rank_folder;
  fs::path abs = fs::absolute(file).lexically_normal();
  for (fs::path dir = abs.parent_path(); !dir.empty() && dir != dir.root_path();
       dir = dir.parent_path()) {
    std::string name = dir.filename().string();
    if (!rank_folder) rank_folder = number_after(name, rank_re);
    if (!loc.device_id) loc.device_id = number_after(name, device_re);
    if (loc.rank_dir.empty() && is_rank_dir_name(name)) loc.rank_dir = dir;
  }
  if (rank_folder)
    loc.rank = *rank_folder;
  else if (!loc.rank_dir.empty())
    loc.rank = rank_of_rank_dir(loc.rank_dir);
  else if (loc.device_id)
    loc.rank = *loc.device_id;
  return loc;
}

namespace {
// `preferred` (relative to the rank folder) when `file` starts with `prefix`, sits in a rank
// folder, and that folder holds `preferred`.
std::optional<fs::path> superseded_by(const fs::path& file, std::string_view prefix,
                                      const fs::path& preferred) {
  if (base_name(file).rfind(prefix, 0) != 0) return std::nullopt;
  Location loc = locate(file);
  if (loc.rank_dir.empty() || !exists_file(loc.rank_dir / preferred)) return std::nullopt;
  return loc.rank_dir / preferred;
}
}  // namespace

std::optional<fs::path> superseding_op_table(const fs::path& file) {
  return superseded_by(file, "op_summary",
                       fs::path("ASCEND_PROFILER_OUTPUT") / "kernel_details.csv");
}

std::optional<fs::path> superseding_timeline(const fs::path& file) {
  return superseded_by(file, "msprof_", fs::path("ASCEND_PROFILER_OUTPUT") / "trace_view.json");
}

}  // namespace perfsage::collectors::ascend

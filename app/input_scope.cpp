#include "app/input_scope.h"

namespace perfsage::app {
namespace fs = std::filesystem;
namespace {

// `path` resolved (links followed, `..` gone) lies at or below `root` (resolved alike).
bool under(const fs::path& path, const fs::path& root) {
  auto rel = path.lexically_relative(root);
  return !rel.empty() && *rel.begin() != "..";
}

std::string list(const std::vector<fs::path>& roots) {
  std::string out;
  for (const auto& r : roots) out += (out.empty() ? "" : ", ") + r.string();
  return out;
}

}  // namespace

std::string outside_roots(const fs::path& input, const std::vector<fs::path>& roots) {
  if (roots.empty())
    return "this daemon accepts no submissions: no folder is configured for them (set "
           "daemon.submit_roots, or watch a folder)";
  std::vector<fs::path> resolved;
  for (const auto& r : roots) {
    std::error_code ec;
    auto c = fs::weakly_canonical(r, ec);
    if (!ec) resolved.push_back(c);
  }
  auto check = [&](const fs::path& p) -> std::string {
    // A path that does not exist resolves as far as it does, so that the answer for a place
    // outside says nothing about what exists there.
    std::error_code ec;
    auto real = fs::weakly_canonical(p, ec);
    if (ec) real = p.lexically_normal();
    for (const auto& r : resolved)
      if (under(real, r)) return "";
    std::string leads;
    if (real != p.lexically_normal()) leads = " (which leads to " + real.native() + ")";
    return p.string() + leads + " is outside the folders this daemon reads for clients (" +
           list(roots) + "; daemon.submit_roots)";
  };
  if (auto why = check(input); !why.empty()) return why;
  std::error_code ec;
  if (!fs::is_directory(input, ec)) return "";
  // Links below the input: each must lead inside as well (a run folder holding a link to a
  // file or folder elsewhere would be read through it).
  for (fs::recursive_directory_iterator
           it(input, fs::directory_options::skip_permission_denied, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_symlink(ec)) continue;
    if (auto why = check(it->path()); !why.empty()) return why;
  }
  return "";
}

}  // namespace perfsage::app

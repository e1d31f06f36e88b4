#include "daemon/run_tracker.h"

#include <fmt/format.h>

#include "daemon/file_seal.h"

namespace perfsage::daemon {
namespace fs = std::filesystem;
namespace {

double seconds(Millis d) {
  return static_cast<double>(d.count()) / 1000.0;
}

}  // namespace

void RunTracker::on_event(const fs::path& path, FileEventKind kind, SteadyTime now) {
  auto loc = layout_.locate(path);
  if (!loc) return;
  auto [it, added] = runs_.try_emplace(loc->path);
  State& s = it->second;
  if (added) s.run = *loc;
  s.last_event = now;
  s.next_check = now + debounce_;
  if (kind == FileEventKind::written) s.open.insert(path);
  if (kind == FileEventKind::closed) s.open.erase(path);
  if (kind == FileEventKind::changed && !fs::exists(path)) {
    // A removed file cannot be open any more; a removed folder takes its files with it.
    for (auto o = s.open.begin(); o != s.open.end();) {
      auto rel = o->lexically_relative(path);
      o = (!rel.empty() && *rel.begin() != "..") || *o == path ? s.open.erase(o) : std::next(o);
    }
  }
}

std::optional<std::string> RunTracker::seal_blocker(const fs::path& run, const RunLayout& layout) {
  std::error_code ec;
  std::vector<fs::path> files;
  if (fs::is_regular_file(run, ec)) {
    files.push_back(run);
  } else {
    for (auto it = fs::recursive_directory_iterator(run, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec) && !layout.ignored(it->path())) files.push_back(it->path());
    }
  }
  bool data = false;
  for (const auto& f : files) {
    Seal seal = file_seal(f);
    if (seal == Seal::marker) continue;
    if (seal != Seal::sealed) {
      return f.lexically_relative(run).string() +
             (seal == Seal::unsealed ? " is not closed yet" : " has no end marker");
    }
    data = true;
  }
  if (!data) return std::string("no data files yet");
  return std::nullopt;
}

std::vector<ReadyRun> RunTracker::take_ready(SteadyTime now) {
  std::vector<ReadyRun> out;
  for (auto it = runs_.begin(); it != runs_.end();) {
    State& s = it->second;
    std::error_code ec;
    if (!fs::exists(s.run.path, ec)) {
      it = runs_.erase(it);
      continue;
    }
    if (now < s.next_check) {
      ++it;
      continue;
    }
    if (!s.open.empty()) {
      s.waiting_for =
          s.open.begin()->lexically_relative(s.run.path).string() + " is open for writing";
      s.next_check = SteadyTime::max();  // until it is closed (the close is an event)
      ++it;
      continue;
    }
    auto quiet_at = s.last_event + quiet_;
    auto blocker = seal_blocker(s.run.path, layout_);
    if (!blocker || now >= quiet_at) {
      std::string why =
          blocker ? fmt::format("quiet for {:g} s", seconds(quiet_)) : std::string("end markers");
      out.push_back({s.run, why});
      it = runs_.erase(it);
      continue;
    }
    s.waiting_for =
        fmt::format("{}; analysed after {:g} s without changes", *blocker, seconds(quiet_));
    s.next_check = quiet_at;
    ++it;
  }
  return out;
}

std::optional<SteadyTime> RunTracker::next_check() const {
  std::optional<SteadyTime> out;
  for (const auto& [path, s] : runs_) {
    if (s.next_check == SteadyTime::max()) continue;
    if (!out || s.next_check < *out) out = s.next_check;
  }
  return out;
}

std::vector<PendingRun> RunTracker::pending() const {
  std::vector<PendingRun> out;
  for (const auto& [path, s] : runs_) {
    out.push_back({s.run, s.waiting_for.empty() ? "changes settling" : s.waiting_for});
  }
  return out;
}

void RunTracker::forget(const fs::path& run) {
  runs_.erase(run);
}

}  // namespace perfsage::daemon

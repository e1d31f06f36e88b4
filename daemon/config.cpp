#include "daemon/config.h"

#include <sys/stat.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>

#include "app/config_units.h"
#include "daemon/listen_address.h"
#include "daemon/run_layout.h"

namespace perfsage::daemon {
namespace fs = std::filesystem;

std::string ConfigProblem::str() const {
  return where + ": " + (error ? "error: " : "warning: ") + text;
}

bool DaemonConfigLoad::ok() const {
  return std::none_of(problems.begin(), problems.end(), [](const auto& p) { return p.error; });
}

namespace {

class Reader {
 public:
  Reader(const fs::path& file, std::vector<ConfigProblem>& problems)
      : file_(file), problems_(problems) {}

  void error(const YAML::Node& n, const std::string& text) { add(n, text, true); }
  void warn(const YAML::Node& n, const std::string& text) { add(n, text, false); }

  // Reports keys of a map that are not in `known`.
  void keys(const YAML::Node& map, const std::string& section, std::set<std::string> known) {
    for (const auto& kv : map) {
      auto k = kv.first.as<std::string>();
      if (!known.count(k)) {
        std::string list;
        for (const auto& name : known) list += (list.empty() ? "" : ", ") + name;
        error(kv.first,
              "unknown key '" + k + "' in " + section + " (expected one of: " + list + ")");
      }
    }
  }

  bool map(const YAML::Node& n, const std::string& what) {
    if (n.IsMap()) return true;
    error(n, what + " must be a map");
    return false;
  }

  void text(const YAML::Node& n, const std::string& what, std::string& out) {
    if (!n) return;
    if (!n.IsScalar()) return error(n, what + " must be a string");
    out = n.as<std::string>();
  }

  void path(const YAML::Node& n, const std::string& what, fs::path& out) {
    std::string s;
    text(n, what, s);
    if (s.empty()) return;
    // Absolute even when the config file was named by a relative path: runs are queued and
    // recognised again by these paths, as submitted (absolute) paths are.
    out = fs::path(s).is_relative() ? (fs::absolute(file_).parent_path() / s).lexically_normal()
                                    : fs::path(s).lexically_normal();
  }

  void boolean(const YAML::Node& n, const std::string& what, bool& out) {
    if (!n) return;
    bool v = false;
    if (!n.IsScalar() || !YAML::convert<bool>::decode(n, v)) {
      return error(n, what + " must be true or false");
    }
    out = v;
  }

  void integer(const YAML::Node& n, const std::string& what, int& out, int min, int max) {
    if (!n) return;
    std::string s = n.IsScalar() ? n.as<std::string>() : "";
    int v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || end != s.data() + s.size() || v < min || v > max) {
      return error(n, what + " must be a whole number from " + std::to_string(min) + " to " +
                          std::to_string(max));
    }
    out = v;
  }

  void duration(const YAML::Node& n, const std::string& what, Millis& out) {
    if (!n) return;
    auto d = n.IsScalar() ? parse_duration(n.as<std::string>()) : std::nullopt;
    if (!d) return error(n, what + " must be a duration such as 500ms, 30s, 5m or 1h");
    out = *d;
  }

  void size(const YAML::Node& n, const std::string& what, uint64_t& out) {
    if (!n) return;
    auto s = n.IsScalar() ? parse_size(n.as<std::string>()) : std::nullopt;
    if (!s || *s == 0) return error(n, what + " must be a size such as 512MiB or 4GiB");
    out = *s;
  }

  void strings(const YAML::Node& n, const std::string& what, std::vector<std::string>& out) {
    if (!n) return;
    if (n.IsScalar()) {
      out = {n.as<std::string>()};
      return;
    }
    if (!n.IsSequence()) return error(n, what + " must be a string or a list of strings");
    out.clear();
    for (const auto& e : n) {
      if (!e.IsScalar()) return error(e, what + " must hold strings");
      out.push_back(e.as<std::string>());
    }
  }

  std::string where(const YAML::Node& n) const {
    auto m = n.Mark();
    if (m.is_null()) return file_.string();
    return file_.string() + ":" + std::to_string(m.line + 1) + ":" + std::to_string(m.column + 1);
  }

 private:
  void add(const YAML::Node& n, const std::string& text, bool is_error) {
    problems_.push_back({where(n), text, is_error});
  }
  fs::path file_;
  std::vector<ConfigProblem>& problems_;
};

void read_watch(Reader& r, const YAML::Node& list, std::vector<WatchRoot>& out) {
  if (!list.IsSequence()) return r.error(list, "daemon.watch must be a list of folders");
  for (const auto& item : list) {
    WatchRoot root;
    if (item.IsScalar()) {
      r.path(item, "daemon.watch[]", root.path);
      out.push_back(root);
      continue;
    }
    if (!r.map(item, "daemon.watch[]")) continue;
    r.keys(item, "daemon.watch[]", {"path", "runs", "job", "ignore"});
    if (!item["path"]) {
      r.error(item, "daemon.watch[] needs a path");
      continue;
    }
    r.path(item["path"], "daemon.watch[].path", root.path);
    r.strings(item["runs"], "daemon.watch[].runs", root.runs);
    r.text(item["job"], "daemon.watch[].job", root.job);
    r.strings(item["ignore"], "daemon.watch[].ignore", root.ignore);
    size_t depth = SIZE_MAX;
    for (const auto& g : root.runs) {
      if (g.empty() || g.front() == '/' || g.find("..") != std::string::npos) {
        r.error(item["runs"], "daemon.watch[].runs: '" + g + "' must be a relative glob");
      }
      depth = std::min(depth, glob_depth(g));
    }
    if (root.runs.empty()) r.error(item["runs"], "daemon.watch[].runs must not be empty");
    if (auto err = check_job_template(root.job, root.runs.empty() ? 0 : depth)) {
      r.error(item["job"] ? item["job"] : item, *err);
    }
    out.push_back(root);
  }
}

void read_http(Reader& r, const YAML::Node& h, HttpLimits& l) {
  r.keys(h, "daemon.http",
         {"header_timeout", "body_timeout", "idle_timeout", "send_timeout", "max_connections",
          "max_connections_per_client", "threads"});
  r.duration(h["header_timeout"], "daemon.http.header_timeout", l.header_timeout);
  r.duration(h["body_timeout"], "daemon.http.body_timeout", l.body_timeout);
  r.duration(h["idle_timeout"], "daemon.http.idle_timeout", l.idle_timeout);
  r.duration(h["send_timeout"], "daemon.http.send_timeout", l.send_timeout);
  r.integer(h["max_connections"], "daemon.http.max_connections", l.max_connections, 1, 4096);
  r.integer(h["max_connections_per_client"], "daemon.http.max_connections_per_client",
            l.max_connections_per_client, 1, 4096);
  r.integer(h["threads"], "daemon.http.threads", l.threads, 1, 256);
  for (auto* t : {&l.header_timeout, &l.body_timeout, &l.idle_timeout, &l.send_timeout})
    if (t->count() <= 0) r.error(h, "daemon.http: timeouts must be longer than 0");
}

void read_section(Reader& r, const YAML::Node& d, DaemonConfig& c) {
  r.keys(d, "daemon",
         {"store",
          "queue_store",
          "instance",
          "postgres",
          "fan_out",
          "listen",
          "token",
          "token_file",
          "workers",
          "watch",
          "debounce",
          "quiet",
          "pack_reload_debounce",
          "shutdown_grace",
          "lease",
          "job_limits",
          "lenient",
          "auto_apply_actions",
          "api_apply_actions",
          "actions_dir",
          "submit_roots",
          "max_crashes",
          "max_attempts",
          "log",
          "http"});
  r.path(d["store"], "daemon.store", c.store);
  r.path(d["queue_store"], "daemon.queue_store", c.queue_store);
  r.text(d["instance"], "daemon.instance", c.instance);
  r.text(d["postgres"], "daemon.postgres", c.postgres);
  r.boolean(d["fan_out"], "daemon.fan_out", c.fan_out);
  r.text(d["listen"], "daemon.listen", c.listen);
  if (d["listen"]) {
    std::string err;
    if (!parse_listen_address(c.listen, err)) r.error(d["listen"], err);
  }
  r.text(d["token"], "daemon.token", c.token);
  r.path(d["token_file"], "daemon.token_file", c.token_file);
  r.integer(d["workers"], "daemon.workers", c.workers, 1, 256);
  if (d["watch"]) read_watch(r, d["watch"], c.watch);
  r.duration(d["debounce"], "daemon.debounce", c.debounce);
  r.duration(d["quiet"], "daemon.quiet", c.quiet);
  r.duration(d["pack_reload_debounce"], "daemon.pack_reload_debounce", c.pack_reload_debounce);
  r.duration(d["shutdown_grace"], "daemon.shutdown_grace", c.shutdown_grace);
  r.duration(d["lease"], "daemon.lease", c.lease);
  if (c.lease < std::chrono::seconds(3)) r.error(d["lease"], "daemon.lease must be at least 3s");
  if (auto jl = d["job_limits"]; jl && r.map(jl, "daemon.job_limits")) {
    r.keys(jl, "daemon.job_limits", {"memory", "cpu", "time"});
    r.size(jl["memory"], "daemon.job_limits.memory", c.job_limits.memory_bytes);
    r.duration(jl["cpu"], "daemon.job_limits.cpu", c.job_limits.cpu);
    r.duration(jl["time"], "daemon.job_limits.time", c.job_limits.time);
  }
  r.boolean(d["lenient"], "daemon.lenient", c.lenient);
  r.boolean(d["auto_apply_actions"], "daemon.auto_apply_actions", c.auto_apply_actions);
  r.boolean(d["api_apply_actions"], "daemon.api_apply_actions", c.api_apply_actions);
  r.path(d["actions_dir"], "daemon.actions_dir", c.actions_dir);
  if (auto roots = d["submit_roots"]) {
    c.submit_roots_set = true;
    if (!roots.IsSequence() && !roots.IsNull()) {
      r.error(roots, "daemon.submit_roots must be a list of folders");
    } else if (roots.IsSequence()) {
      for (const auto& item : roots) {
        fs::path p;
        r.path(item, "daemon.submit_roots[]", p);
        if (!p.empty()) c.submit_roots.push_back(p);
      }
    }
  }
  r.integer(d["max_crashes"], "daemon.max_crashes", c.max_crashes, 1, 100);
  r.integer(d["max_attempts"], "daemon.max_attempts", c.max_attempts, 1, 100);
  if (auto http = d["http"]; http && r.map(http, "daemon.http")) read_http(r, http, c.http);
  if (auto log = d["log"]; log && r.map(log, "daemon.log")) {
    r.keys(log, "daemon.log", {"file", "max_size", "max_files", "level"});
    r.path(log["file"], "daemon.log.file", c.log.file);
    r.size(log["max_size"], "daemon.log.max_size", c.log.max_bytes);
    r.integer(log["max_files"], "daemon.log.max_files", c.log.max_files, 1, 1000);
    r.text(log["level"], "daemon.log.level", c.log.level);
    static const std::set<std::string> levels = {"trace", "debug", "info", "warn", "error"};
    if (log["level"] && !levels.count(c.log.level)) {
      r.error(log["level"], "daemon.log.level must be trace, debug, info, warn or error");
    }
  }
}

}  // namespace

std::optional<Millis> parse_duration(const std::string& text) {
  return app::parse_duration(text);
}

std::optional<uint64_t> parse_size(const std::string& text) {
  return app::parse_size(text);
}

DaemonConfigLoad read_daemon_config(const fs::path& file) {
  DaemonConfigLoad load;
  load.config.config_file = file;
  Reader r(file, load.problems);
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    load.problems.push_back({file.string(), "cannot read the config file", true});
    return load;
  } catch (const YAML::Exception& e) {
    load.problems.push_back({file.string() + ":" + std::to_string(e.mark.line + 1) + ":" +
                                 std::to_string(e.mark.column + 1),
                             e.msg, true});
    return load;
  }
  if (!root || root.IsNull()) return load;
  if (!root.IsMap()) {
    r.error(root, "the config must be a map of sections (kb, limits, daemon)");
    return load;
  }
  if (auto d = root["daemon"]; d && !d.IsNull() && r.map(d, "daemon")) {
    read_section(r, d, load.config);
  }
  return load;
}

void validate(DaemonConfigLoad& load) {
  auto& c = load.config;
  auto where = [&](const std::string& key) {
    return c.config_file.empty() ? key : c.config_file.string() + ": " + key;
  };
  auto error = [&](const std::string& key, const std::string& text) {
    load.problems.push_back({where(key), text, true});
  };
  if (c.store.empty()) error("daemon.store", "no store: set daemon.store or pass --store FILE");
  if (c.queue_store.empty() && !c.store.empty()) c.queue_store = c.store.string() + ".queue";
  if (c.actions_dir.empty() && !c.store.empty()) {
    c.actions_dir = fs::absolute(c.store).parent_path() / "perfsage-actions";
  }
  if (!c.submit_roots_set) {
    c.submit_roots.clear();
    for (const auto& w : c.watch) c.submit_roots.push_back(w.path);
  }
  if (!c.store.empty() && c.queue_store == c.store) {
    error("daemon.queue_store", "the queue needs a file of its own, not the store");
  }
  std::string err;
  auto addr = parse_listen_address(c.listen, err);
  if (!addr) error("daemon.listen", err);
  if (!c.token_file.empty()) {
    struct stat st {};
    if (::stat(c.token_file.c_str(), &st) != 0) {
      error("daemon.token_file", "cannot read " + c.token_file.string());
    } else if ((st.st_mode & 077) != 0) {
      error("daemon.token_file", c.token_file.string() +
                                     " is readable by others: chmod 600 it (the token is a "
                                     "password)");
    }
  }
  if (!c.token.empty() && !c.token_file.empty()) {
    error("daemon.token", "set daemon.token or daemon.token_file, not both");
  }
  if (addr && c.token.empty() && c.token_file.empty() && !is_loopback_host(addr->host)) {
    error("daemon.listen", "refusing to listen on " + c.listen +
                               ": it is not a loopback address and no token is configured "
                               "(set daemon.token_file to a file with mode 0600)");
  }
  for (const auto& w : c.watch) {
    std::error_code ec;
    if (!fs::is_directory(w.path, ec)) {
      error("daemon.watch", "watch folder " + w.path.string() + " is not a folder");
    }
  }
  if (c.job_limits.memory_bytes < (64ull << 20)) {
    error("daemon.job_limits.memory", "at least 64MiB are needed to analyse anything");
  }
}

}  // namespace perfsage::daemon

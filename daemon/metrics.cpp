#include "daemon/metrics.h"

#include <fmt/format.h>

#include <stdexcept>

namespace perfsage::daemon {
namespace {

constexpr const char* kHistogram = "perfsage_analysis_duration_seconds";

std::string escape(const std::string& v) {
  std::string out;
  for (char c : v) {
    if (c == '\\' || c == '"') out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string label_text(const Labels& labels, const std::string& extra = "") {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ",") + k + "=\"" + escape(v) + "\"";
  if (!extra.empty()) out += (out.empty() ? "" : ",") + extra;
  return out.empty() ? "" : "{" + out + "}";
}

std::string number(double v) {
  return fmt::format("{}", v);
}

}  // namespace

const std::map<std::string, Metrics::Family>& Metrics::families() {
  static const std::map<std::string, Family> f = {
      {"perfsage_jobs", {"Jobs in the queue by state.", "gauge"}},
      {"perfsage_queue_length", {"Jobs waiting for a worker.", "gauge"}},
      {"perfsage_jobs_finished_total", {"Jobs that ended, by outcome.", "counter"}},
      {"perfsage_ingest_bytes_total", {"Bytes of input ingested by finished jobs.", "counter"}},
      {"perfsage_ingest_records_total", {"Records ingested by finished jobs.", "counter"}},
      {"perfsage_findings_total", {"Findings of finished jobs by pack and severity.", "counter"}},
      {"perfsage_actions_applied_total",
       {"Actions applied automatically (daemon.auto_apply_actions).", "counter"}},
      {"perfsage_pack_load_failures_total",
       {"Knowledge loads (start or reload) that failed; the old packs kept serving.", "counter"}},
      {"perfsage_pack_reloads_total", {"Knowledge loads, by result.", "counter"}},
      {"perfsage_packs_loaded", {"Packs in the knowledge now serving.", "gauge"}},
      {"perfsage_packs_broken",
       {"Packs left out of the knowledge serving because they do not load.", "gauge"}},
      {"perfsage_knowledge_generation", {"Generation of the knowledge now serving.", "gauge"}},
      {"perfsage_last_reload_success", {"1 when the last knowledge load succeeded.", "gauge"}},
      {"perfsage_worker_restarts_total",
       {"Workers (or the forkserver) that died or were killed, by reason.", "counter"}},
      {"perfsage_workers_busy", {"Workers running a job.", "gauge"}},
      {"perfsage_runs_pending", {"Watched runs not complete yet.", "gauge"}},
      {"perfsage_watched_folders", {"Configured watch folders being watched.", "gauge"}},
      {"perfsage_inotify_watches",
       {"Directories under inotify watch: the watch folders and every folder below them.",
        "gauge"}},
      {"perfsage_http_requests_total", {"HTTP requests by status class.", "counter"}},
      {"perfsage_http_connections", {"Open HTTP connections (waiting or served).", "gauge"}},
      {"perfsage_http_refused_total",
       {"Requests answered or closed by the connection front before a thread served them, by "
        "reason (request_timeout, payload_too_large, headers_too_large, bad_request, "
        "unavailable, evicted).",
        "counter"}},
      {"perfsage_database_up",
       {"Shared mode: 1 when the shared PostgreSQL answered this daemon's last sync.", "gauge"}},
      {"perfsage_catalog_published_total",
       {"Shared mode: runs this daemon published to the catalog (a run published again after "
        "an action counts again).",
        "counter"}},
      {"perfsage_catalog_imported_total",
       {"Shared mode: publications (of any daemon) imported into this daemon's replica.",
        "counter"}},
      {"perfsage_catalog_import_failures_total",
       {"Shared mode: publications skipped because their extract was damaged.", "counter"}},
      {kHistogram, {"Wall time of finished analyses (worker start to result).", "histogram"}},
  };
  return f;
}

Metrics::Metrics()
    : bounds_{0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800, 3600},
      buckets_(bounds_.size() + 1, 0) {}

void Metrics::add(const std::string& name, double value, const Labels& labels) {
  if (!families().count(name)) throw std::logic_error("undeclared metric " + name);
  std::lock_guard lock(mu_);
  values_[name][labels] += value;
}

void Metrics::set(const std::string& name, double value, const Labels& labels) {
  if (!families().count(name)) throw std::logic_error("undeclared metric " + name);
  std::lock_guard lock(mu_);
  values_[name][labels] = value;
}

double Metrics::value(const std::string& name, const Labels& labels) const {
  std::lock_guard lock(mu_);
  auto it = values_.find(name);
  if (it == values_.end()) return 0;
  auto v = it->second.find(labels);
  return v == it->second.end() ? 0 : v->second;
}

void Metrics::observe_analysis_seconds(double seconds) {
  std::lock_guard lock(mu_);
  size_t i = 0;
  while (i < bounds_.size() && seconds > bounds_[i]) ++i;
  ++buckets_[i];
  sum_ += seconds;
  ++count_;
}

std::string Metrics::render(const std::map<std::string, std::map<Labels, double>>& extra) const {
  std::lock_guard lock(mu_);
  std::string out;
  for (const auto& [name, fam] : families()) {
    out += "# HELP " + name + " " + fam.help + "\n# TYPE " + name + " " + fam.type + "\n";
    if (name == kHistogram) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < buckets_.size(); ++i) {
        cumulative += buckets_[i];
        std::string le = i < bounds_.size() ? number(bounds_[i]) : "+Inf";
        out += name + "_bucket{le=\"" + le + "\"} " + std::to_string(cumulative) + "\n";
      }
      out +=
          name + "_sum " + number(sum_) + "\n" + name + "_count " + std::to_string(count_) + "\n";
      continue;
    }
    std::map<Labels, double> series;
    if (auto it = values_.find(name); it != values_.end()) series = it->second;
    if (auto it = extra.find(name); it != extra.end()) {
      for (const auto& [l, v] : it->second) series[l] = v;
    }
    if (series.empty() && fam.type == "counter") series[{}] = 0;
    for (const auto& [labels, v] : series)
      out += name + label_text(labels) + " " + number(v) + "\n";
  }
  return out;
}

}  // namespace perfsage::daemon

// The daemon's Prometheus metrics: counters and gauges with labels, and one latency histogram,
// rendered in the text exposition format (version 0.0.4). Thread-safe; updates are rare (per
// job, per reload), so one mutex is enough.
#pragma once

#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace perfsage::daemon {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Metrics {
 public:
  Metrics();
  void add(const std::string& name, double value, const Labels& labels = {});
  void set(const std::string& name, double value, const Labels& labels = {});
  void observe_analysis_seconds(double seconds);
  // Prometheus text; `extra` gauges (e.g. queue counts read at scrape time) are rendered with
  // the rest.
  std::string render(const std::map<std::string, std::map<Labels, double>>& extra = {}) const;
  double value(const std::string& name, const Labels& labels = {}) const;

  struct Family {
    std::string help, type;  // counter | gauge
  };
  static const std::map<std::string, Family>& families();

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::map<Labels, double>> values_;
  std::vector<double> bounds_;
  std::vector<uint64_t> buckets_;  // cumulative counts are computed when rendering
  double sum_ = 0;
  uint64_t count_ = 0;
};

}  // namespace perfsage::daemon

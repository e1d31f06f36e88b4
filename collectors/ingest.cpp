#include "collectors/ingest.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "store/file_bytes.h"

namespace perfsage::collectors {
namespace fs = std::filesystem;

namespace {
// Why a file found by walking a directory needs no probing ("" when it does).
std::string walked_file_skip_reason(const fs::path& path) {
  std::string name = path.filename().string();
  if (name.size() > 5 && name.ends_with(".done")) return "msprof .done marker files";
  // PROF_*/host/data/ and PROF_*/device_<n>/data/: binary slices that msprof --export turns
  // into the text files the collectors read.
  fs::path dir = path.parent_path();
  for (; !dir.empty() && dir.has_filename(); dir = dir.parent_path()) {
    if (dir.filename() != "data") continue;
    std::string owner = dir.parent_path().filename().string();
    if (owner == "host" || owner.rfind("device_", 0) == 0)
      return "msprof raw data files (host/data, device_*/data; read by msprof --export)";
  }
  return "";
}
}  // namespace

std::vector<InputFile> expand_inputs(const std::vector<fs::path>& inputs) {
  std::vector<InputFile> out;
  for (const auto& in : inputs) {
    std::error_code ec;
    auto st = fs::status(in, ec);
    if (ec || !fs::exists(st)) throw ParseError(in.string() + ": no such file or directory");
    if (fs::is_directory(st)) {
      std::vector<fs::path> found;
      for (auto it = fs::recursive_directory_iterator(
               in, fs::directory_options::skip_permission_denied, ec);
           !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file(ec)) found.push_back(it->path());
      }
      if (ec) throw ParseError(in.string() + ": cannot walk directory: " + ec.message());
      std::sort(found.begin(), found.end());
      for (auto& p : found) {
        std::string reason = walked_file_skip_reason(p);
        out.push_back({std::move(p), false, std::move(reason)});
      }
    } else {
      out.push_back({in, true, {}});
    }
  }
  return out;
}

std::string fingerprint_inputs(const std::vector<InputFile>& files) {
  // FNV-1a over (absolute path, size, mtime): cheap for multi-GB traces, changes when they do.
  uint64_t h = 1469598103934665603ULL;
  auto mix = [&h](const void* data, size_t n) {
    auto* p = static_cast<const unsigned char*>(data);
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 1099511628211ULL;
  };
  for (const auto& f : files) {
    std::error_code ec;
    std::string abs = fs::absolute(f.path, ec).lexically_normal().string();
    mix(abs.data(), abs.size());
    uint64_t size = fs::file_size(f.path, ec);
    mix(&size, sizeof size);
    auto mtime = fs::last_write_time(f.path, ec).time_since_epoch().count();
    mix(&mtime, sizeof mtime);
  }
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
  return buf;
}

FileProbe probe_file(const fs::path& path) {
  FileProbe p;
  p.path = path;
  p.gzip = store::is_gzip_file(path);
  p.head = store::read_head(path, 64 * 1024);
  return p;
}

const Collector* detect_collector(const FileProbe& probe) {
  const Collector* best = nullptr;
  int best_score = 0;
  for (const auto& c : all_collectors()) {
    int score = c->detect(probe);
    if (score > best_score) {
      best = c.get();
      best_score = score;
    }
  }
  return best;
}

IngestResult ingest(const std::vector<InputFile>& files, store::RunWriter& out, Mode mode,
                    const IngestProgress& progress) {
  IngestResult result;
  std::map<std::string, int64_t> skipped_files;
  uint64_t total = 0, done = 0;
  if (progress) {
    for (const auto& f : files) {
      std::error_code ec;
      if (f.skip_reason.empty()) total += fs::file_size(f.path, ec);
    }
    progress(0);
  }
  for (const auto& f : files) {
    if (progress && f.skip_reason.empty() && total > 0) {
      std::error_code ec;
      if (done > 0) progress(static_cast<double>(done) / static_cast<double>(total));
      done += fs::file_size(f.path, ec);
    }
    if (!f.skip_reason.empty()) {
      ++skipped_files[f.skip_reason];
      continue;
    }
    FileProbe probe = probe_file(f.path);
    const Collector* c = detect_collector(probe);
    store::IngestFile summary;
    summary.path = f.path.string();
    if (!c) {
      if (f.named) {
        throw ParseError(f.path.string() +
                         ": unrecognised format (expected an Ascend op table, a trace JSON, a GE "
                         "graph dump or an ONNX model)");
      }
      summary.collector = "unrecognised";
      summary.warnings.push_back("no collector recognises this file; ignored");
      out.add(summary);
      result.files.push_back(std::move(summary));
      continue;
    }
    CollectContext ctx(out, mode, f.path.string(), result.hints);
    c->collect(probe, ctx);
    if (ctx.records() == 0 && ctx.skipped() > 0) {
      // Say why: the skip reasons are all the user has to go on.
      std::string why;
      for (const auto& [reason, skip] : ctx.tally().skips) {
        why += "; " + std::to_string(skip.count) + " " + reason + " (first at " + skip.first_where +
               ")";
      }
      throw ParseError(f.path.string() + ": no usable record (" + std::to_string(ctx.skipped()) +
                       " skipped" + why + ")");
    }
    summary.collector = c->name();
    summary.records = ctx.records();
    summary.skipped = ctx.skipped();
    summary.warnings = ctx.report_lines();
    out.add(summary);
    result.files.push_back(std::move(summary));
  }
  if (progress) progress(1);
  if (!skipped_files.empty()) {
    store::IngestFile summary;
    summary.path = "(profiler files without analysis data)";
    summary.collector = "skipped";
    for (const auto& [reason, n] : skipped_files)
      summary.warnings.push_back(std::to_string(n) + " " + reason + ", not read");
    out.add(summary);
    result.files.push_back(std::move(summary));
  }
  return result;
}

}  // namespace perfsage::collectors

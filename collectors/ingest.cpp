#include "collectors/ingest.h"

#include <algorithm>
#include <cstdio>

#include "collectors/common/file_reader.h"

namespace perfsage::collectors {
namespace fs = std::filesystem;

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
      for (auto& p : found) out.push_back({std::move(p), false});
    } else {
      out.push_back({in, true});
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
  p.gzip = is_gzip_file(path);
  p.head = read_head(path, 64 * 1024);
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

IngestResult ingest(const std::vector<InputFile>& files, store::RunWriter& out, Mode mode) {
  IngestResult result;
  for (const auto& f : files) {
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
      throw ParseError(f.path.string() + ": no usable record (" + std::to_string(ctx.skipped()) +
                       " skipped)");
    }
    summary.collector = c->name();
    summary.records = ctx.records();
    summary.skipped = ctx.skipped();
    summary.warnings = ctx.report_lines();
    out.add(summary);
    result.files.push_back(std::move(summary));
  }
  return result;
}

}  // namespace perfsage::collectors

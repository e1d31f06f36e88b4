#include "cli/pipeline.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <ctime>

#include "analyzers/core/analyze_run.h"
#include "collectors/ingest.h"
#include "store/background_checkpoint.h"
#include "store/run_writer.h"

namespace perfsage::cli {
namespace fs = std::filesystem;

std::string system_clock_iso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

StoreHandle::StoreHandle(const std::string& path) {
  if (!path.empty()) {
    db_ = std::make_unique<store::Database>(path);
    return;
  }
  // A temporary file rather than :memory: keeps a multi-GB trace's records out of RAM.
  std::string tmpl = (fs::temp_directory_path() / "perfsage-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw store::StoreError("cannot create a temporary directory");
  temp_dir_ = tmpl;
  db_ = std::make_unique<store::Database>((temp_dir_ / "store.db").string());
}

StoreHandle::~StoreHandle() {
  db_.reset();
  if (!temp_dir_.empty()) {
    std::error_code ec;
    fs::remove_all(temp_dir_, ec);
  }
}

namespace {
double ms_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

std::string default_job(const std::vector<fs::path>& inputs) {
  if (inputs.empty()) return "";
  fs::path p = fs::absolute(inputs.front()).lexically_normal();
  if (p.filename().empty()) p = p.parent_path();
  std::string name = p.filename().string();
  for (const char* ext : {".gz", ".json", ".csv", ".txt", ".onnx"}) {
    if (name.size() > std::string(ext).size() && name.ends_with(ext)) {
      name.resize(name.size() - std::string(ext).size());
    }
  }
  return name;
}
}  // namespace

IngestOutcome ingest_and_analyze(store::Database& db, const IngestRequest& req,
                                 const Clock& clock) {
  auto files = collectors::expand_inputs(req.inputs);
  std::string fp = collectors::fingerprint_inputs(files);
  IngestOutcome out;
  if (req.reuse_existing) {
    if (auto existing = store::find_run_by_fingerprint(db, fp)) {
      out.run_id = *existing;
      out.reused = true;
      out.summary = *store::load_run(db, *existing);
      return out;
    }
  }
  std::vector<std::string> inputs;
  for (const auto& p : req.inputs) inputs.push_back(fs::absolute(p).lexically_normal().string());
  store::RunHeader header{req.job.empty() ? default_job(req.inputs) : req.job, inputs, fp, clock()};
  collectors::RunHints hints;
  auto start = std::chrono::steady_clock::now();
  {
    store::RunWriter writer(db, header);
    auto result = collectors::ingest(files, writer, req.mode);
    hints = result.hints;
    writer.commit();
    out.run_id = writer.run_id();
    spdlog::debug("ingest: {} file(s) in {:.1f} ms", files.size(), ms_since(start));
  }
  store::BackgroundCheckpoint checkpoint(db.path());  // while the analyzers run
  out.summary = analyzers::analyze_run(db, out.run_id, {hints.framework, hints.device, hints.chip});
  return out;
}

}  // namespace perfsage::cli

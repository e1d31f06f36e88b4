#include "app/analysis.h"

#include <fcntl.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <optional>
#include <stdexcept>

#include "analyzers/core/analyze_run.h"
#include "app/actions_service.h"
#include "app/job_identity.h"
#include "app/report.h"
#include "app/store_health.h"
#include "app/stored_run.h"
#include "collectors/ingest.h"
#include "engine/evaluator.h"
#include "engine/kb/message_text.h"
#include "store/background_checkpoint.h"
#include "store/results.h"
#include "store/run_lock.h"
#include "store/run_registry.h"
#include "store/run_writer.h"

namespace perfsage::app {
namespace fs = std::filesystem;

std::string system_clock_iso8601() {
  std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

void learn_derived_table_shapes() {
  store::learn_declared_shapes(analyzers::derived_tables());
}

StoreHandle::StoreHandle(const std::string& path) {
  if (!path.empty()) {
    db_ = std::make_unique<store::Database>(path);
    // A store written by an older perfsage gets the derived tables this one's facts read.
    store::ensure_derived_tables(*db_, analyzers::derived_tables());
    return;
  }
  // A temporary file rather than :memory: keeps a multi-GB trace's records out of RAM.
  std::string tmpl = (fs::temp_directory_path() / "perfsage-XXXXXX").string();
  if (!mkdtemp(tmpl.data())) throw store::StoreError("cannot create a temporary directory");
  temp_dir_ = tmpl;
  db_ = std::make_unique<store::Database>((temp_dir_ / "store.db").string(),
                                          store::StoreLifetime::disposable);
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

void progress(const AnalysisRequest& req, std::string_view stage, double fraction) {
  if (req.progress) req.progress(stage, fraction);
}

// What an analysis reads of its knowledge: the analyzers' part (hardware specs, patterns) at
// once, the packs when they are needed, waiting for them while they load (KnowledgeInFlight;
// `packs` then throws when the load failed, and the caller reports the load's error).
struct KnowledgeAccess {
  const Knowledge& analyzers;
  std::function<const Knowledge&()> packs;
};

// Test-only (tests/integration/store_integrity_test.cpp, which kills perfsage at these points):
// with PERFSAGE_TEST_PAUSE_AT=<stage> set, perfsage writes "perfsage: paused at <stage>" to
// stderr on reaching the stage and waits there until it is killed. Stages: ingest (every row
// written, not committed), analysis (committed and analysed, not marked analysed), packs
// (analysed, no pack evaluated yet: tests/integration/daemon_test.cpp shows the run meanwhile).
// With PERFSAGE_TEST_PAUSE_FLAG=<file> as well, only the first to reach the stage pauses (it
// creates the file), and it goes on when the file is removed (tests/integration/
// daemon_shared_test.cpp: a job finished by a daemon that lost its lease meanwhile).
void test_pause_at(std::string_view stage, const KnowledgeAccess& kn) {
  const char* at = std::getenv("PERFSAGE_TEST_PAUSE_AT");
  if (!at || stage != at) return;
  kn.packs();  // nothing is said before the packs' load is
  const char* flag = std::getenv("PERFSAGE_TEST_PAUSE_FLAG");
  if (flag) {
    if (::access((std::string(flag) + ".done").c_str(), F_OK) == 0) return;
    int fd = ::open(flag, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) return;  // another one paused here already
    ::close(fd);
  }
  std::string line = "perfsage: paused at " + std::string(stage) + "\n";
  [[maybe_unused]] ssize_t n = ::write(STDERR_FILENO, line.data(), line.size());
  if (!flag) {
    for (;;) ::pause();
  }
  while (::access(flag, F_OK) == 0) ::usleep(20000);
  // Removed: go on, and leave a mark so that nobody pauses here again.
  int done = ::open((std::string(flag) + ".done").c_str(), O_CREAT | O_WRONLY | O_CLOEXEC, 0644);
  if (done >= 0) ::close(done);
}

// Ingests the inputs as one run and runs the analyzers, or finds the stored run.
struct Ingested {
  int64_t run_id = 0;
  bool reused = false;
  std::vector<std::string> notices;
};

// Runs the analyzers on a committed run, saying how many have ended; only then is the run
// complete.
void analyze_stored(store::Database& db, int64_t run_id, const analyzers::RunIdentity& identity,
                    const KnowledgeAccess& kn, const AnalysisRequest& req) {
  store::BackgroundCheckpoint checkpoint(db.path());  // while the analyzers run
  progress(req, "analyzers", 0);
  analyzers::analyze_run(db, run_id, identity, {kn.analyzers.hardware, kn.analyzers.patterns}, 0,
                         [&](size_t done, size_t total) {
                           progress(req, "analyzers",
                                    static_cast<double>(done) / static_cast<double>(total));
                         });
  test_pause_at("analysis", kn);
  store::set_run_status(db, run_id, store::kRunAnalyzed);
}

// Inputs from this size on are analysed without the packs' ready environments.
constexpr uint64_t kKeepPackEnvironmentsBelow = 64ull << 20;

Result<Ingested> ingest(store::Database& db, const AnalysisRequest& req, const KnowledgeAccess& kn,
                        const Limits& limits) {
  for (const auto& p : req.inputs) {
    std::error_code ec;
    if (!fs::exists(p, ec)) return Error{ErrorKind::input, p.string() + ": no such file or folder"};
  }
  const std::vector<fs::path> normal_inputs = app::normal_inputs(req.inputs);
  auto files = collectors::expand_inputs(normal_inputs);
  uint64_t total = 0;
  for (const auto& f : files) {
    std::error_code ec;
    const auto size = fs::file_size(f.path, ec);
    if (!ec) total += size;
  }
  // The packs' ready environments save a small run tens of ms and hold tens of MB through the
  // ingest's peak: a big run's peak memory matters more (docs/performance.md).
  if (total >= kKeepPackEnvironmentsBelow) engine::release_pristine_environments(kn.packs().packs);
  if (limits.max_input_bytes > 0) {
    if (total > limits.max_input_bytes)
      return Error{ErrorKind::input,
                   "the inputs hold " + engine::format_bytes(static_cast<double>(total)) +
                       ", more than the configured limit of " +
                       engine::format_bytes(static_cast<double>(limits.max_input_bytes)) +
                       " (limits.max_input)"};
  }
  std::string fp = collectors::fingerprint_inputs(files);
  // Another perfsage storing the same inputs into this store finishes first (its run is then
  // reused) instead of storing them twice; held until this run is complete.
  store::RunLock lock(db.path(), fp, [&] {
    try {
      kn.packs();  // nothing is said before the packs' load is
    } catch (...) {
      // The load's error is reported once the lock is taken.
    }
    spdlog::warn("another perfsage is storing these inputs in {}; waiting for it to finish",
                 db.path());
    progress(req, "waiting", -1);
  });
  Ingested out;
  if (auto existing = store::find_run_by_fingerprint(db, fp)) {
    auto run = store::load_run(db, *existing);
    if (req.reuse_existing && reusable(*run)) {
      out.run_id = *existing;
      out.reused = true;
      return out;
    }
    if (req.reuse_existing) {
      // Stored, but its analysis never finished (a crash or a kill): finish it now.
      if (db.read_only())
        return Error{ErrorKind::store,
                     "run " + std::to_string(*existing) + " in the read-only store " + db.path() +
                         " was not completely analysed; open the store with write access"};
      out.notices.push_back("run " + std::to_string(*existing) +
                            " was stored but its analysis did not finish; analysing it again");
      analyze_stored(db, *existing, {run->framework, run->device, run->chip}, kn, req);
      out.run_id = *existing;
      out.reused = true;
      return out;
    }
    // A fingerprint names one run: a fresh ingest replaces the stored one.
    out.notices.push_back("run " + std::to_string(*existing) + " held these inputs; replaced");
    store::delete_run(db, *existing);
  }
  if (db.read_only())
    return Error{ErrorKind::store,
                 db.disk_full()
                     ? "the disk holding " + db.path() +
                           " is full; new inputs cannot be stored (its stored runs "
                           "can still be read)"
                     : "store " + db.path() + " is read-only; new inputs cannot be stored"};
  if (auto damage = store_damage(db); !damage.empty())
    return Error{ErrorKind::store_damaged, damage};
  std::vector<std::string> inputs;
  for (const auto& p : normal_inputs) inputs.push_back(p.string());
  store::RunHeader header{req.job.empty() ? default_job(normal_inputs) : req.job, inputs, fp,
                          req.clock ? req.clock() : system_clock_iso8601()};
  collectors::RunHints hints;
  auto start = std::chrono::steady_clock::now();
  progress(req, "ingest", -1);
  {
    store::RunWriter writer(db, header);
    auto result = collectors::ingest(files, writer, req.mode,
                                     [&](double done) { progress(req, "ingest", done); });
    test_pause_at("ingest", kn);
    hints = result.hints;
    writer.set_identity(hints.framework, hints.device, hints.chip);
    writer.commit();
    out.run_id = writer.run_id();
    if (req.run_known) {
      kn.packs();
      req.run_known(out.run_id);
    }
    spdlog::debug("ingest: {} file(s) in {:.1f} ms", files.size(), ms_since(start));
  }
  analyze_stored(db, out.run_id, {hints.framework, hints.device, hints.chip}, kn, req);
  return out;
}

}  // namespace

std::vector<store::StoredFinding> to_stored(const std::vector<perfsage::v1::Finding>& findings) {
  std::vector<store::StoredFinding> out;
  out.reserve(findings.size());
  for (const auto& f : findings) {
    store::StoredFinding s{f.id(),
                           f.pack(),
                           f.rule(),
                           static_cast<int>(f.severity()),
                           f.estimated_gain_us(),
                           f.estimated_gain_share(),
                           ""};
    if (!f.SerializeToString(&s.payload)) throw std::runtime_error("cannot serialise finding");
    out.push_back(std::move(s));
  }
  return out;
}

namespace {

// Runs `f`, turning the exceptions of the layers below into typed errors.
template <class T, class F>
Result<T> guarded(F&& f) {
  try {
    return f();
  } catch (const store::InputError& e) {  // collectors::ParseError too
    return Error{ErrorKind::input, e.what()};
  } catch (const store::StoreError& e) {
    return Error{ErrorKind::store, e.what()};
  } catch (const std::bad_alloc&) {
    return Error{ErrorKind::internal, "out of memory"};
  } catch (const std::exception& e) {
    return Error{ErrorKind::internal, e.what()};
  }
}

Result<AnalysisOutcome> analyze_with(store::Database& db, const AnalysisRequest& request,
                                     const KnowledgeAccess& knowledge, const Limits& limits) {
  return guarded<AnalysisOutcome>([&]() -> Result<AnalysisOutcome> {
    auto ingested = ingest(db, request, knowledge, limits);
    if (!ingested) return ingested.error();
    AnalysisOutcome out;
    out.run_id = ingested->run_id;
    out.reused = ingested->reused;
    if (out.reused && request.run_known) {
      knowledge.packs();
      request.run_known(out.run_id);
    }
    out.notices = ingested->notices;
    if (out.reused && out.notices.empty())
      out.notices.push_back("these inputs are already stored as run " + std::to_string(out.run_id) +
                            "; analysing the stored run");
    if (db.disk_full())
      out.notices.push_back("the disk holding " + db.path() +
                            " is full: the stored run is read and reported, but this analysis "
                            "is not kept in the store (free some space to keep it)");
    out.nothing_recognised = recognised_inputs(db, out.run_id) == 0;
    if (out.nothing_recognised) out.notices.push_back(nothing_recognised_notice(db, out.run_id));
    if (request.evaluate_packs && !out.nothing_recognised) {
      progress(request, "packs", 0);
      engine::EvaluationOptions opts;
      opts.budget = limits.pack_budget;
      opts.isolate_untrusted = limits.isolate_untrusted;
      opts.isolate_all = limits.isolate_all;
      opts.on_pack = [&](size_t done, size_t total) {
        progress(request, "packs", static_cast<double>(done) / static_cast<double>(total));
      };
      test_pause_at("packs", knowledge);
      auto ev = engine::evaluate(db, out.run_id, knowledge.packs().packs, opts);
      if (auto full = save_results(db, out.run_id, out.reused, ev.packs, to_stored(ev.findings)))
        out.notices.push_back(*full);
      progress(request, "packs", 1);
      // Closing the loop: applied actions of this job whose next run this is are judged now.
      auto judged = verify_applied_actions(db, default_actor(request.clock), out.run_id);
      if (!judged)
        out.notices.push_back("applied actions could not be judged: " + judged.error().message);
    }
    out.report = build_report(db, out.run_id);
    if (out.nothing_recognised && !request.keep_unrecognised && !db.read_only())
      store::delete_run(db, out.run_id);
    // A log that cannot be copied (a full disk) keeps the run safe but grows with every
    // command: say so now rather than fail the next one.
    if (auto why = db.checkpoint(); !why.empty())
      out.notices.push_back(why);
    else if (!db.read_only() && !db.disposable())
      store::truncate_log(db.path());  // in use by another connection: a later one cuts it
    return out;
  });
}

// The load's failure, where an analysis asks for packs that did not load.
struct KnowledgeFailed : std::runtime_error {
  KnowledgeFailed() : std::runtime_error("the knowledge did not load") {}
};

}  // namespace

Result<AnalysisOutcome> analyze(store::Database& db, const AnalysisRequest& request,
                                const Knowledge& knowledge, const Limits& limits) {
  return analyze_with(db, request, {knowledge, [&]() -> const Knowledge& { return knowledge; }},
                      limits);
}

Result<AnalysisOutcome> analyze(store::Database& db, const AnalysisRequest& request,
                                KnowledgeInFlight& knowledge, const Limits& limits) {
  // Whatever the analysis did meanwhile, a load that failed is the outcome, as when the
  // knowledge is loaded first.
  auto loaded_or_error = [&]() -> std::optional<Error> {
    const auto& loaded = knowledge.wait();
    return loaded ? std::nullopt : std::optional<Error>(loaded.error());
  };
  const Knowledge* analyzers = knowledge.analyzer_knowledge();
  if (!analyzers) return *loaded_or_error();
  auto out = analyze_with(db, request,
                          {*analyzers,
                           [&]() -> const Knowledge& {
                             const auto& loaded = knowledge.wait();
                             if (!loaded) throw KnowledgeFailed();
                             return **loaded;
                           }},
                          limits);
  if (auto failed = loaded_or_error()) return *failed;
  return out;
}

Result<perfsage::v1::AnalysisReport> load_report(store::Database& db, int64_t run_id) {
  return guarded<perfsage::v1::AnalysisReport>([&]() -> Result<perfsage::v1::AnalysisReport> {
    if (!store::load_run(db, run_id))
      return Error{ErrorKind::usage, "no run " + std::to_string(run_id) + " in " + db.path()};
    return build_report(db, run_id);
  });
}

}  // namespace perfsage::app

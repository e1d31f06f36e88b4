// Run layout, file seals, the run tracker (with an injected clock) and the inotify watcher.
#include <zlib.h>

#include <fstream>

#include "daemon/file_seal.h"
#include "daemon/inotify_watcher.h"
#include "daemon/run_layout.h"
#include "daemon/run_tracker.h"
#include "test_support.h"

using namespace perfsage::daemon;
using perfsage::test::TempDir;
namespace fs = std::filesystem;

namespace {
void write_gzip(const fs::path& p, const std::string& text, size_t keep_bytes = SIZE_MAX) {
  std::string out(compressBound(text.size()) + 64, '\0');
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(std::min<size_t>(zs.total_out, keep_bytes));
  deflateEnd(&zs);
  std::ofstream(p, std::ios::binary) << out;
}

WatchRoot root(const fs::path& path, std::vector<std::string> runs, std::string job) {
  WatchRoot r;
  r.path = path;
  r.runs = std::move(runs);
  r.job = std::move(job);
  return r;
}
}  // namespace

TEST_CASE("a path maps to its run and job by the root's globs and template") {
  RunLayout layout(
      {root("/data/runs", {"*/*"}, "{1}"), root("/data/one", {"*.json.gz"}, "{name}")});
  auto r = layout.locate("/data/runs/bert/2026-01-01/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  REQUIRE(r);
  CHECK(r->path == "/data/runs/bert/2026-01-01");
  CHECK(r->job == "bert");
  CHECK(r->root == 0);
  CHECK_FALSE(layout.locate("/data/runs/bert"));           // above the run level
  CHECK_FALSE(layout.locate("/data/elsewhere/x/y"));       // outside every root
  CHECK_FALSE(layout.locate("/data/runs/bert/.cache/x"));  // hidden
  CHECK_FALSE(layout.locate("/data/runs/bert/r1/trace.json.tmp"));
  auto single = layout.locate("/data/one/resnet.pt.trace.json.gz");
  REQUIRE(single);
  CHECK(single->path == "/data/one/resnet.pt.trace.json.gz");
  CHECK(single->job == "resnet");
  CHECK_FALSE(layout.locate("/data/one/notes.txt"));

  WatchRoot named = root("/srv/profiles", {"*"}, "{root}-{1}");
  CHECK(job_name(named, {"run7"}) == "profiles-run7");
  CHECK(check_job_template("{name}", 1) == std::nullopt);
  CHECK(check_job_template("{2}", 1).has_value());
  CHECK(check_job_template("{host}", 1).has_value());
}

TEST_CASE("the daemon's own output and action folders are never runs") {
  RunLayout layout({root("/data/runs", {"*"}, "{1}")},
                   {"/data/runs/perf.db", "/data/runs/perf.db.queue", "/data/runs/actions",
                    "/data/runs/perfsaged.log"});
  CHECK(layout.locate("/data/runs/bert/kernel_details.csv"));
  for (const char* own :
       {"/data/runs/perf.db", "/data/runs/perf.db-wal", "/data/runs/perf.db-shm",
        "/data/runs/perf.db.queue-wal", "/data/runs/actions", "/data/runs/actions/plan-3/x.cfg",
        "/data/runs/perfsaged.log", "/data/runs/perfsaged.log.1"}) {
    INFO(own);
    CHECK(layout.ignored(own));
    CHECK_FALSE(layout.locate(own));
  }
  // `perfsage actions apply`'s folder, wherever it is (a run's job folder, say).
  CHECK_FALSE(layout.locate("/data/runs/perfsage-actions/plan-4/fusion_switch.cfg"));
  CHECK_FALSE(layout.locate("/data/runs/bert/perfsage-actions/plan-4/x.env"));
  CHECK(layout.locate("/data/runs/actions-old/kernel_details.csv"));  // a name alike is a run
  CHECK(layout.locate("/data/runs/perf.dbx/kernel_details.csv"));
}

TEST_CASE("file seals: .done markers, closed JSON, cut gzip streams, formats without an end") {
  TempDir dir;
  auto csv = dir.write("kernel_details.csv", "a,b\n1,2\n");
  CHECK(file_seal(csv) == Seal::unknown);
  dir.write("kernel_details.csv.done", "");
  CHECK(file_seal(csv) == Seal::sealed);
  CHECK(file_seal(dir.path() / "kernel_details.csv.done") == Seal::marker);

  CHECK(file_seal(dir.write("open.json", "{\"traceEvents\": [{\"ph\": \"X\"},")) == Seal::unsealed);
  CHECK(file_seal(dir.write("closed.json", "  {\"traceEvents\": []}\n\n")) == Seal::sealed);
  CHECK(file_seal(dir.write("mismatch.json", "[1, 2}")) == Seal::unsealed);
  CHECK(file_seal(dir.write("empty.json", "")) == Seal::unsealed);

  std::string trace = "{\"traceEvents\": [" + std::string(200000, ' ') + "]}";
  write_gzip(dir.path() / "t.json.gz", trace);
  CHECK(file_seal(dir.path() / "t.json.gz") == Seal::sealed);
  write_gzip(dir.path() / "cut.json.gz", trace, 200);
  CHECK(file_seal(dir.path() / "cut.json.gz") == Seal::unsealed);
  write_gzip(dir.path() / "open.json.gz", "{\"traceEvents\": [");
  CHECK(file_seal(dir.path() / "open.json.gz") == Seal::unsealed);
}

TEST_CASE("the tracker waits for open files, the debounce and the quiet time") {
  TempDir dir;
  fs::create_directories(dir.path() / "job1" / "r1");
  RunLayout layout({root(dir.path(), {"*/*"}, "{1}")});
  RunTracker tracker(layout, Millis(100), Millis(1000));
  SteadyTime t0{};
  auto csv = dir.write("job1/r1/kernel_details.csv", "a\n1\n");

  tracker.on_event(csv, FileEventKind::written, t0);
  CHECK(tracker.take_ready(t0 + Millis(5000)).empty());  // still open for writing
  REQUIRE(tracker.pending().size() == 1);
  CHECK_THAT(tracker.pending()[0].waiting_for, Catch::Contains("kernel_details.csv is open"));
  CHECK_FALSE(tracker.next_check());  // nothing to do until the close

  tracker.on_event(csv, FileEventKind::closed, t0 + Millis(6000));
  CHECK(tracker.take_ready(t0 + Millis(6050)).empty());  // debounce
  CHECK(tracker.take_ready(t0 + Millis(6200)).empty());  // CSV has no end: quiet time
  CHECK_THAT(tracker.pending()[0].waiting_for, Catch::Contains("has no end marker"));
  CHECK(tracker.next_check() == t0 + Millis(7000));
  auto ready = tracker.take_ready(t0 + Millis(7000));
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].run.path == dir.path() / "job1" / "r1");
  CHECK(ready[0].run.job == "job1");
  CHECK(ready[0].why == "quiet for 1 s");
  CHECK(tracker.pending().empty());

  // Rewritten after it was handed out: pending again, ready again.
  tracker.on_event(csv, FileEventKind::changed, t0 + Millis(8000));
  CHECK(tracker.take_ready(t0 + Millis(9000)).size() == 1);
}

TEST_CASE("end markers make a run ready after the debounce, without the quiet time") {
  TempDir dir;
  fs::create_directories(dir.path() / "r1");
  RunLayout layout({root(dir.path(), {"*"}, "{name}")});
  RunTracker tracker(layout, Millis(100), Millis(60000));
  SteadyTime t0{};
  auto trace = dir.write("r1/rank0.json", "{\"traceEvents\": [");
  tracker.on_event(trace, FileEventKind::closed, t0);
  CHECK(tracker.take_ready(t0 + Millis(200)).empty());
  CHECK_THAT(tracker.pending()[0].waiting_for, Catch::Contains("rank0.json is not closed yet"));
  dir.write("r1/rank0.json", "{\"traceEvents\": []}");
  tracker.on_event(trace, FileEventKind::closed, t0 + Millis(300));
  auto ready = tracker.take_ready(t0 + Millis(400));
  REQUIRE(ready.size() == 1);
  CHECK(ready[0].why == "end markers");

  // A removed run is dropped.
  tracker.on_event(trace, FileEventKind::changed, t0 + Millis(500));
  fs::remove_all(dir.path() / "r1");
  CHECK(tracker.take_ready(t0 + Millis(700)).empty());
  CHECK(tracker.pending().empty());
}

TEST_CASE("the watcher follows new and moved-in folders and drops moved-out ones") {
  TempDir dir;
  fs::create_directories(dir.path() / "root");
  fs::create_directories(dir.path() / "outside" / "moved" / "deep");
  std::ofstream(dir.path() / "outside" / "moved" / "deep" / "a.csv") << "x\n";
  InotifyWatcher w([](const fs::path& p) { return p.filename().string().front() == '.'; });
  std::vector<fs::path> found;
  w.add_tree(dir.path() / "root", &found);
  CHECK(found.empty());

  auto drain = [&] {
    std::vector<WatchEvent> all;
    for (int i = 0; i < 50; ++i) {
      auto ev = w.read_events();
      all.insert(all.end(), ev.begin(), ev.end());
      if (!ev.empty()) i = 45;  // a few more reads for what follows
      ::usleep(2000);
    }
    return all;
  };
  auto has = [](const std::vector<WatchEvent>& evs, const fs::path& p, WatchEvent::Kind k) {
    for (const auto& e : evs) {
      if (e.path == p && e.kind == k) return true;
    }
    return false;
  };

  // Written before the new folders' watches existed: reported by the walk that adds them.
  fs::create_directories(dir.path() / "root" / "job" / "r1");
  auto early = dir.path() / "root" / "job" / "r1" / "early.csv";
  { std::ofstream(early) << "1\n"; }
  auto ev = drain();
  CHECK((has(ev, early, WatchEvent::changed) || has(ev, early, WatchEvent::closed)));
  auto f = dir.path() / "root" / "job" / "r1" / "t.json";
  { std::ofstream(f) << "{}"; }
  ev = drain();
  CHECK(has(ev, f, WatchEvent::written));
  CHECK(has(ev, f, WatchEvent::closed));

  fs::rename(dir.path() / "outside" / "moved", dir.path() / "root" / "moved");
  ev = drain();
  CHECK(has(ev, dir.path() / "root" / "moved" / "deep" / "a.csv", WatchEvent::changed));
  size_t watched = w.watched_folders();
  { std::ofstream(dir.path() / "root" / "moved" / "deep" / "b.csv") << "y\n"; }
  ev = drain();
  CHECK(has(ev, dir.path() / "root" / "moved" / "deep" / "b.csv", WatchEvent::closed));

  fs::rename(dir.path() / "root" / "moved", dir.path() / "outside" / "back");
  ev = drain();
  CHECK(w.watched_folders() == watched - 2);
  { std::ofstream(dir.path() / "outside" / "back" / "deep" / "c.csv") << "z\n"; }
  ev = drain();
  CHECK(ev.empty());  // no longer under the root

  fs::create_directories(dir.path() / "root" / ".hidden");
  { std::ofstream(dir.path() / "root" / ".hidden" / "x") << "1"; }
  CHECK(drain().empty());
}

// The daemon's page and the HTML report in headless Chromium (Debian's chromium, installed by
// scripts/setup): they load without console messages, show the run and its findings, and the
// SVG charts hold one bar segment and one point per datum the API gives. Screenshots are kept
// in build/test-artifacts/.
#include <set>
#include <sstream>

#include "daemon_support.h"

using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

fs::path chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (fs::exists(p)) return p;
  }
  return {};
}

struct Page {
  std::string dom, log;
};

// Loads `url` in a fresh headless Chromium; with `screenshot` set, saves a PNG instead of
// dumping the DOM. Virtual time lets the page's fetches finish before the dump.
Page load(const fs::path& work, const std::string& url, const fs::path& screenshot = {}) {
  static int n = 0;
  auto profile = work / ("chromium-profile-" + std::to_string(n++));
  std::string cmd = chromium().string() +
                    " --headless --no-sandbox --disable-gpu --disable-background-networking"
                    " --disable-component-update --disable-sync --no-first-run"
                    " --user-data-dir=" +
                    profile.string() +
                    " --enable-logging=stderr --v=0 --virtual-time-budget=10000"
                    " --window-size=1280,2200 ";
  cmd += screenshot.empty() ? "--dump-dom " : "--screenshot=" + screenshot.string() + " ";
  cmd +=
      "'" + url + "' > " + (work / "dom.html").string() + " 2> " + (work / "chrome.log").string();
  int rc = std::system(("timeout 120 " + cmd).c_str());
  INFO(cmd);
  REQUIRE(rc == 0);
  auto read = [](const fs::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  return {read(work / "dom.html"), read(work / "chrome.log")};
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Console output of the page (errors, uncaught exceptions, CSP violations): the pages log
// nothing themselves, so any line is a failure.
std::string console_lines(const std::string& log) {
  std::string out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos) out += line + "\n";
  }
  return out;
}

void check_run_view(const std::string& dom, const v1::RunDetail& detail) {
  INFO(dom.substr(0, 3000));
  CHECK(count(dom, "<li class=\"finding ") ==
        static_cast<size_t>(detail.report().recommendations_size()));
  for (const auto& f : detail.report().recommendations()) {
    CHECK(count(dom, "data-finding-id=\"" + f.id() + "\"") >= 1);
  }
  size_t segments = 0;
  for (const auto& s : detail.charts().steps()) segments += static_cast<size_t>(s.segments_size());
  REQUIRE(segments > 0);
  CHECK(count(dom, "class=\"seg\"") == segments);
  CHECK(count(dom, "<g class=\"bar\"") == static_cast<size_t>(detail.charts().steps_size()));
  REQUIRE(detail.charts().roofline().points_size() > 0);
  CHECK(count(dom, "class=\"point\"") ==
        static_cast<size_t>(detail.charts().roofline().points_size()));
  std::set<std::pair<double, double>> roofs;  // precisions with one peak share a line
  for (const auto& r : detail.charts().roofline().roofs())
    roofs.emplace(r.peak_flops(), r.bandwidth());
  CHECK(count(dom, "class=\"roof\"") == roofs.size());
  CHECK(dom.find("Run " + std::to_string(detail.report().run().id()) + " — " +
                 detail.report().run().job()) != std::string::npos);
}

}  // namespace

TEST_CASE("the daemon's page and the HTML report render the run in headless Chromium") {
  if (chromium().empty()) {
    WARN("skipped: chromium is not installed (scripts/setup installs it)");
    return;
  }
  TempDir dir;
  fs::create_directories(dir.path() / "runs");
  auto artifacts = fs::path(PERFSAGE_BINARY_DIR) / "test-artifacts";
  fs::create_directories(artifacts);
  DaemonProcess d(dir.path(), "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  watch: [" +
                                  (dir.path() / "runs").string() + "]\n");
  REQUIRE(d.start());
  auto fixture = source_dir() / "tests/fixtures/daemon/ascend_run";
  auto job = d.wait_job(d.submit(fixture).id());
  REQUIRE(job.state() == "done");
  auto detail = d.get_json<v1::RunDetail>("/api/v1/runs/" + std::to_string(job.run_id()));
  REQUIRE(detail.report().recommendations_size() > 0);
  std::string base = "http://127.0.0.1:" + std::to_string(d.port());

  SECTION("run view served by the daemon") {
    auto page = load(dir.path(), base + "/#/run/" + std::to_string(job.run_id()));
    CHECK(console_lines(page.log).empty());
    INFO(console_lines(page.log));
    check_run_view(page.dom, detail);
    load(dir.path(), base + "/#/run/" + std::to_string(job.run_id()),
         artifacts / "daemon_run_page.png");
    CHECK(fs::file_size(artifacts / "daemon_run_page.png") > 10000);
  }
  SECTION("runs list and a job's history") {
    auto runs = load(dir.path(), base + "/#/runs");
    CHECK(console_lines(runs.log).empty());
    CHECK(count(runs.dom, "class=\"run-row\"") == 1);
    auto history = load(dir.path(), base + "/#/job/ascend_run");
    CHECK(console_lines(history.log).empty());
    CHECK(count(history.dom, "class=\"history-row\"") ==
          static_cast<size_t>(detail.report().recommendations_size()));
    CHECK(count(history.dom, "class=\"gain-point\"") ==
          static_cast<size_t>(detail.report().recommendations_size()));
  }
  SECTION("the HTML report from perfsage analyze opens offline") {
    auto html = dir.path() / "report.html";
    std::string cmd = perfsage_binary().string() + " analyze -q --format html -o " + html.string() +
                      " " + fixture.string();
    REQUIRE(std::system(cmd.c_str()) == 0);
    std::ifstream in(html);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    // Nothing to fetch: no external script, style, image or request.
    CHECK(text.find("src=\"http") == std::string::npos);
    CHECK(text.find("href=\"http") == std::string::npos);
    CHECK(text.find("fetch(") == std::string::npos);
    auto page = load(dir.path(), "file://" + html.string());
    CHECK(console_lines(page.log).empty());
    // The same run analysed again by the CLI: its own id, the same findings and charts.
    detail.mutable_report()->mutable_run()->set_id(1);
    check_run_view(page.dom, detail);
    load(dir.path(), "file://" + html.string(), artifacts / "html_report.png");
    CHECK(fs::file_size(artifacts / "html_report.png") > 10000);
  }
  d.kill(SIGTERM);
}

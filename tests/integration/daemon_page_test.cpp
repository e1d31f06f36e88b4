// The daemon's page and the HTML report in headless Chromium (Debian's chromium, installed by
// scripts/setup): they load without console messages, show the run and its findings, and the
// SVG charts hold one bar segment and one point per datum the API gives. Screenshots are kept
// in build/test-artifacts/.
#include <set>
#include <sstream>

#include "chromium_support.h"
#include "daemon_support.h"

using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

void check_run_view(const std::string& dom, const v1::RunDetail& detail) {
  INFO(dom.substr(0, 3000));
  CHECK(count_in(dom, "<li class=\"finding ") ==
        static_cast<size_t>(detail.report().recommendations_size()));
  for (const auto& f : detail.report().recommendations()) {
    CHECK(count_in(dom, "data-finding-id=\"" + f.id() + "\"") >= 1);
  }
  size_t segments = 0, bars = 0;
  for (const auto& c : detail.charts().step_charts()) {
    bars += static_cast<size_t>(c.bars_size());
    for (const auto& b : c.bars()) segments += static_cast<size_t>(b.segments_size());
  }
  REQUIRE(segments > 0);
  CHECK(count_in(dom, "class=\"seg\"") == segments);
  CHECK(count_in(dom, "<g class=\"bar\"") == bars);
  REQUIRE(detail.charts().roofline().points_size() > 0);
  CHECK(count_in(dom, "class=\"point\"") ==
        static_cast<size_t>(detail.charts().roofline().points_size()));
  std::set<std::pair<double, double>> roofs;  // precisions with one peak share a line
  for (const auto& r : detail.charts().roofline().roofs())
    roofs.emplace(r.peak_flops(), r.bandwidth());
  CHECK(count_in(dom, "class=\"roof\"") == roofs.size());
  CHECK(dom.find("Run " + std::to_string(detail.report().run().id()) + " — " +
                 detail.report().run().job()) != std::string::npos);
}

}  // namespace

TEST_CASE("the daemon's page and the HTML report render the run in headless Chromium") {
  PERFSAGE_REQUIRE_CHROMIUM();
  TempDir dir;
  fs::create_directories(dir.path() / "runs");
  auto artifacts = fs::path(PERFSAGE_BINARY_DIR) / "test-artifacts";
  fs::create_directories(artifacts);
  DaemonProcess d(dir.path(), "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  watch: [" +
                                  (dir.path() / "runs").string() + "]\n  submit_roots: [" +
                                  dir.path().string() + ", " +
                                  (source_dir() / "tests/fixtures").string() + "]\n");
  REQUIRE(d.start());
  auto fixture = source_dir() / "tests/fixtures/daemon/ascend_run";
  auto job = d.wait_job(d.submit(fixture).id());
  REQUIRE(job.state() == "done");
  auto detail = d.get_json<v1::RunDetail>("/api/v1/runs/" + std::to_string(job.run_id()));
  REQUIRE(detail.report().recommendations_size() > 0);
  std::string base = "http://127.0.0.1:" + std::to_string(d.port());

  SECTION("run view served by the daemon") {
    auto page = load_page(dir.path(), base + "/#/run/" + std::to_string(job.run_id()));
    CHECK(console_lines(page.log).empty());
    INFO(console_lines(page.log));
    check_run_view(page.dom, detail);
    load_page(dir.path(), base + "/#/run/" + std::to_string(job.run_id()),
              artifacts / "daemon_run_page.png");
    CHECK(fs::file_size(artifacts / "daemon_run_page.png") > 10000);
  }
  SECTION("runs list and a job's history") {
    auto runs = load_page(dir.path(), base + "/#/runs");
    CHECK(console_lines(runs.log).empty());
    CHECK(count_in(runs.dom, "class=\"run-row\"") == 1);
    auto history = load_page(dir.path(), base + "/#/job/ascend_run");
    CHECK(console_lines(history.log).empty());
    CHECK(count_in(history.dom, "class=\"history-row\"") ==
          static_cast<size_t>(detail.report().recommendations_size()));
    CHECK(count_in(history.dom, "class=\"gain-point\"") ==
          static_cast<size_t>(detail.report().recommendations_size()));
  }
  SECTION("a job's second run links to its comparison with the first") {
    auto copy = dir.path() / "copy" / "ascend_run";  // same files elsewhere: same job, new run
    fs::create_directories(copy.parent_path());
    fs::copy(fixture, copy, fs::copy_options::recursive);
    auto second = d.wait_job(d.submit(copy).id());
    REQUIRE(second.state() == "done");
    REQUIRE(second.run_id() != job.run_id());
    auto history = load_page(dir.path(), base + "/#/job/ascend_run");
    CHECK(console_lines(history.log).empty());
    CHECK(count_in(history.dom, "class=\"compare-link\"") == 1);
    std::string pair = std::to_string(job.run_id()) + "/" + std::to_string(second.run_id());
    CHECK(count_in(history.dom, "href=\"#/compare/" + pair + "\"") == 1);
    auto page = load_page(dir.path(), base + "/#/compare/" + pair);
    CHECK(console_lines(page.log).empty());
    INFO(page.dom.substr(0, 3000));
    // Every finding of the run once, all unchanged, since the files are the same.
    REQUIRE(count_in(page.dom, "<div id=\"comparison\">") == 1);
    CHECK(count_in(page.dom, "<tr class=\"finding-change change-unchanged\">") ==
          static_cast<size_t>(detail.report().recommendations_size()));
    CHECK(count_in(page.dom, "<tr class=\"finding-change change-") ==
          static_cast<size_t>(detail.report().recommendations_size()));
    load_page(dir.path(), base + "/#/compare/" + pair, artifacts / "daemon_compare_page.png");
    CHECK(fs::file_size(artifacts / "daemon_compare_page.png") > 10000);
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
    auto page = load_page(dir.path(), "file://" + html.string());
    CHECK(console_lines(page.log).empty());
    // The same run analysed again by the CLI: its own id, the same findings and charts.
    detail.mutable_report()->mutable_run()->set_id(1);
    check_run_view(page.dom, detail);
    load_page(dir.path(), "file://" + html.string(), artifacts / "html_report.png");
    CHECK(fs::file_size(artifacts / "html_report.png") > 10000);
  }
  d.kill(SIGTERM);
}

// The HTML report (`perfsage analyze --format html`) and the daemon's run page in headless
// Chromium on a GPU trace, Ascend runs, a CPU-only run and a 1,000-step run (issue 26): each
// renders without a script error or console message; every step chart draws one named source,
// as many bars and segments as its data (at most 200 bars, a long run's groups with their
// range), round axis ticks; the Roofline draws its points, or says why there are none; evidence
// reads as the text report prints it. Screenshots go to build/test-artifacts/browser/ (ctest
// label `browser`).
#include <google/protobuf/util/json_util.h>

#include <cmath>
#include <regex>
#include <set>

#include "chromium_support.h"
#include "daemon_support.h"
#include "unit/kineto_trace_builder.h"

using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

fs::path artifacts() {
  auto dir = fs::path(PERFSAGE_BINARY_DIR) / "test-artifacts" / "browser";
  fs::create_directories(dir);
  return dir;
}

// Text as the DOM dump writes it inside an element.
std::string dom_text(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '&')
      out += "&amp;";
    else if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else
      out += c;
  }
  return out;
}

// The part of `dom` from the first `start` to the next `end` (empty when absent).
std::string slice(const std::string& dom, const std::string& start, const std::string& end) {
  size_t a = dom.find(start);
  if (a == std::string::npos) return {};
  size_t b = dom.find(end, a);
  return dom.substr(a, b == std::string::npos ? std::string::npos : b - a);
}

std::vector<std::string> matches(const std::string& text, const std::regex& re) {
  std::vector<std::string> out;
  for (std::sregex_iterator it(text.begin(), text.end(), re), e; it != e; ++it)
    out.push_back((*it)[1]);
  return out;
}

// Y-axis labels of a step chart: "0", then evenly spaced multiples of 1, 2 or 5 × 10^n in one
// unit (µs, ms or s) chosen for the range.
void check_time_ticks(const std::vector<std::string>& ticks) {
  INFO("ticks: " << [&] {
    std::string all;
    for (const auto& t : ticks) all += t + " | ";
    return all;
  }());
  REQUIRE(ticks.size() >= 3);
  CHECK(ticks[0] == "0");
  std::smatch m;
  std::regex label(R"(^(\d+(\.\d+)?) (µs|ms|s)$)");
  REQUIRE(std::regex_match(ticks[1], m, label));
  const std::string unit = m[3];
  const double step = std::stod(m[1]);
  double mantissa = step / std::pow(10, std::floor(std::log10(step)));
  CHECK((std::fabs(mantissa - 1) < 1e-9 || std::fabs(mantissa - 2) < 1e-9 ||
         std::fabs(mantissa - 5) < 1e-9));
  for (size_t i = 1; i < ticks.size(); ++i) {
    REQUIRE(std::regex_match(ticks[i], m, label));
    CHECK(m[3] == unit);
    CHECK(std::stod(m[1]) == Approx(step * static_cast<double>(i)));
  }
}

void check_run_view(const std::string& page, const v1::RunDetail& detail) {
  // Errors are recorded on <html>; the view is drawn into <main> (the report's own script
  // follows it, and names what is looked for here).
  std::string html_tag = slice(page, "<html", ">");
  INFO(html_tag);
  CHECK(html_tag.find("data-script-errors") == std::string::npos);
  const std::string dom = slice(page, "<main id=\"app\"", "</main>");
  INFO(dom.substr(0, 2000));
  REQUIRE(count_in(dom, "data-rendered=\"run\"") == 1);
  CHECK(count_in(dom, "<li class=\"finding ") ==
        static_cast<size_t>(detail.report().recommendations_size()));
  // Evidence as the text report prints it.
  for (const auto& f : detail.report().recommendations()) {
    for (const auto& e : f.evidence()) {
      INFO(f.rule() << " " << e.name() << " = " << e.display());
      CHECK(dom.find("<th>" + dom_text(e.name()) + "</th><td" +
                     (e.has_number() ? " class=\"num\">" : ">") + dom_text(e.display()) +
                     "</td>") != std::string::npos);
    }
  }
  CHECK(dom.find("job_type: 0") == std::string::npos);

  const auto& charts = detail.charts();
  CHECK(count_in(dom, "<figure class=\"step-figure\"") ==
        static_cast<size_t>(charts.step_charts_size()));
  std::set<std::string> sources;
  for (const auto& c : charts.step_charts()) {
    INFO("step chart of " << c.source());
    CHECK(sources.insert(c.source()).second);  // one chart per source
    std::string fig =
        slice(dom, "<figure class=\"step-figure\" data-source=\"" + c.source() + "\"", "</figure>");
    REQUIRE_FALSE(fig.empty());
    CHECK(fig.find("<span class=\"source\">" + dom_text(c.title()) + "</span>") !=
          std::string::npos);
    CHECK(c.bars_size() <= 200);
    CHECK(count_in(fig, "<g class=\"bar\"") == static_cast<size_t>(c.bars_size()));
    size_t segments = 0;
    for (const auto& b : c.bars()) segments += static_cast<size_t>(b.segments_size());
    CHECK(count_in(fig, "class=\"seg\"") == segments);
    if (c.steps_per_bar() > 1) {
      CHECK(count_in(fig, "<line class=\"range\"") >= 1);
      CHECK(fig.find(dom_text(c.note())) != std::string::npos);
    }
    check_time_ticks(matches(fig, std::regex(R"(text-anchor="end" class="tick">([^<]*)</text>)")));
  }
  const auto& roof = charts.roofline();
  CHECK(count_in(dom, "class=\"point\"") == static_cast<size_t>(roof.points_size()));
  if (roof.points_size() == 0) {
    // No chart of roofs alone: the note says why.
    CHECK(count_in(dom, "roofline-chart") == 0);
    REQUIRE_FALSE(roof.note().empty());
    CHECK(dom.find("<p class=\"chart-note empty\">" + dom_text(roof.note()) + "</p>") !=
          std::string::npos);
  } else {
    for (const auto& t : matches(slice(dom, "roofline-chart", "</svg>"),
                                 std::regex(R"(text-anchor="end" class="tick">([^<]*)</text>)")))
      CHECK_THAT(t, Catch::Matches(R"((0\.0*1|1|10|100)( [kMGTPE])? ?FLOP/s)"));
  }
}

// A window tall enough for the whole run view (findings, charts, inputs).
int page_height(const v1::RunDetail& d) {
  int h = 900 + 300 * d.report().recommendations_size() + 380 * d.charts().step_charts_size() +
          450 + 28 * (d.report().ingest_size() + d.report().packs_size());
  return std::min(h, 16000);
}

v1::RunDetail embedded_detail(const fs::path& html) {
  std::ifstream in(html);
  std::string text((std::istreambuf_iterator<char>(in)), {});
  std::string json =
      slice(text, "<script type=\"application/json\" id=\"perfsage-data\">", "</script>");
  REQUIRE_FALSE(json.empty());
  json.erase(0, json.find('>') + 1);
  v1::RunDetail d;
  REQUIRE(google::protobuf::util::JsonStringToMessage(json, &d).ok());
  return d;
}

// `input` as the HTML report of the CLI and as the daemon's run page, checked and shot; returns
// the daemon's RunDetail.
v1::RunDetail check_input(const std::string& name, const fs::path& given) {
  const fs::path input = fs::canonical(given);
  INFO(name << ": " << input);
  TempDir dir;
  auto html = dir.path() / (name + ".html");
  std::string cmd = perfsage_binary().string() + " analyze -q --format html -o " + html.string() +
                    " " + input.string();
  REQUIRE(std::system(cmd.c_str()) == 0);
  auto detail = embedded_detail(html);
  auto page = load_page(dir.path(), "file://" + html.string());
  INFO(console_lines(page.log));
  CHECK(console_lines(page.log).empty());
  check_run_view(page.dom, detail);
  auto shot = artifacts() / (name + "-report.png");
  load_page(dir.path(), "file://" + html.string(), shot, page_height(detail));
  CHECK(fs::file_size(shot) > 10000);

  fs::create_directories(dir.path() / "runs");
  DaemonProcess d(dir.path(), "daemon:\n  store: perf.db\n  listen: 127.0.0.1:0\n  watch: [" +
                                  (dir.path() / "runs").string() + "]\n  submit_roots: [" +
                                  input.parent_path().string() + "]\n");
  REQUIRE(d.start());
  auto job = d.wait_job(d.submit(input).id(), 120);
  REQUIRE(job.state() == "done");
  auto served = d.get_json<v1::RunDetail>("/api/v1/runs/" + std::to_string(job.run_id()));
  std::string url =
      "http://127.0.0.1:" + std::to_string(d.port()) + "/#/run/" + std::to_string(job.run_id());
  auto run_page = load_page(dir.path(), url);
  INFO(console_lines(run_page.log));
  CHECK(console_lines(run_page.log).empty());
  CHECK(count_in(run_page.dom, "class=\"error\"") == 0);
  check_run_view(run_page.dom, served);
  shot = artifacts() / (name + "-daemon-run.png");
  load_page(dir.path(), url, shot, page_height(served));
  CHECK(fs::file_size(shot) > 10000);
  d.kill(SIGTERM);
  std::cout << name << ": screenshots in " << artifacts().string() << "/" << name
            << "-{report,daemon-run}.png\n";
  return served;
}

// 1,000 ProfilerSteps of 10 to 13 ms (every 97th 8 ms longer): an FP32 matmul with shapes and
// an all-reduce on its own stream in each.
fs::path write_thousand_steps(const fs::path& dir) {
  KinetoTraceBuilder b;
  double t = 1000;
  for (int s = 1; s <= 1000; ++s) {
    double dur = 10000 + (s % 50) * 60 + (s % 97 == 0 ? 8000 : 0);
    b.step(s, t, dur);
    std::string id = R"("External id": )" + std::to_string(s);
    b.op("aten::mm", t + 10, 50,
         id + R"(, "Input Dims": [[512, 1024], [1024, 512]], "Input type": ["float", "float"])");
    b.launch("cudaLaunchKernel", t + 20, 5, "kernel", "ampere_sgemm_128x64_nn", t + 100,
             5000 + (s % 13) * 100, 7, id);
    b.launch("cudaLaunchKernel", t + 30, 5, "kernel", "ncclKernel_AllReduce_RING_LL_Sum_float",
             t + 5400 + (s % 13) * 100, 2500, 20);
    t += dur;
  }
  auto path = dir / "thousand_steps" / "thousand_steps.pt.trace.json";
  fs::create_directories(path.parent_path());
  std::ofstream(path) << b.json();
  return path;
}

}  // namespace

TEST_CASE("browser: a GPU trace (HTA alexnet)") {
  PERFSAGE_REQUIRE_CHROMIUM();
  PERFSAGE_REQUIRE_SAMPLES();
  check_input("gpu-alexnet", samples_dir() / "kineto" /
                                 "hta__critical_path__alexnet__benchmark_result_2869224_"
                                 "1695835535_trace.json.gz");
}

TEST_CASE("browser: an Ascend run with two step sources (examples/resnet50_rank0_ascend_pt)") {
  PERFSAGE_REQUIRE_CHROMIUM();
  check_input("ascend-resnet50", source_dir() / "examples" / "resnet50_rank0_ascend_pt");
}

TEST_CASE("browser: an Ascend cluster of 8 ranks (mstt)") {
  PERFSAGE_REQUIRE_CHROMIUM();
  PERFSAGE_REQUIRE_SAMPLES();
  check_input("ascend-mstt", samples_dir() / "ascend" / "mstt");
}

TEST_CASE("browser: a CPU-only run (torch MLP trace)") {
  PERFSAGE_REQUIRE_CHROMIUM();
  check_input("cpu-mlp",
              source_dir() / "tests" / "fixtures" / "torch113" / "mlp_cpu_trace.json.gz");
}

TEST_CASE("browser: a 1,000-step run is drawn as at most 200 bars with their range") {
  PERFSAGE_REQUIRE_CHROMIUM();
  TempDir dir;
  auto detail = check_input("thousand-steps", write_thousand_steps(dir.path()));
  REQUIRE(detail.charts().step_charts_size() == 1);
  const auto& c = detail.charts().step_charts(0);
  CHECK(c.steps() == 1000);
  CHECK(c.steps_per_bar() == 5);
  CHECK(c.bars_size() == 200);
}

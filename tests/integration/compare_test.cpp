// `perfsage compare` end to end on real inputs: the daemon's small Ascend run
// (tests/fixtures/daemon/ascend_run) against a copy with one op lengthened (made below), the
// bundled ResNet-50 Ascend example, and a CPU-only Kineto trace; the expected deltas are
// computed by hand from the fixture's numbers (tests/fixtures/daemon/make_ascend_run.py).
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <sstream>

#include "app/run_comparison.h"
#include "cli_support.h"
#include "perfsage/v1/api.pb.h"

using namespace perfsage;
using namespace perfsage::test;
namespace fs = std::filesystem;
namespace v1 = perfsage::v1;

namespace {

CommandResult compare(const std::vector<std::string>& args) {
  return run_command("compare", args);
}

v1::RunComparison compare_json(std::vector<std::string> args) {
  args.insert(args.end(), {"--format", "json"});
  auto r = compare(args);
  INFO(r.err);
  REQUIRE(r.code == 0);
  return parse_json<v1::RunComparison>(r.out);
}

fs::path fixture_run() {
  return source_dir() / "tests/fixtures/daemon/ascend_run";
}

std::string read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> split(const std::string& line, size_t fields) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i + 1 < fields; ++i) {
    size_t comma = line.find(',', start);
    out.push_back(line.substr(start, comma - start));
    start = comma + 1;
  }
  out.push_back(line.substr(start));  // the rest, with its quoted shape lists
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) s += (i ? "," : "") + v[i];
  return s;
}

std::string plus(const std::string& number, double add, int decimals) {
  std::ostringstream os;
  os.setf(std::ios::fixed);
  os.precision(decimals);
  os << std::stod(number) + add;
  return os.str();
}

// A second run of the fixture's job where MatMul_ffn1 lasts `add_us` longer in every one of
// the 5 steps, and each step's Computing (and Stage) time grows by as much.
fs::path lengthened_run(const TempDir& dir, double add_us) {
  fs::path out = dir.path() / "second" / "ascend_run";
  fs::path prof = out / "ASCEND_PROFILER_OUTPUT";
  fs::create_directories(prof);
  std::istringstream kernels(read(fixture_run() / "ASCEND_PROFILER_OUTPUT/kernel_details.csv"));
  std::ofstream k(prof / "kernel_details.csv");
  std::string line;
  int changed = 0;
  for (bool header = true; std::getline(kernels, line); header = false) {
    auto f = split(line, 10);  // Step Id ... Duration(us) is the 9th field, before any quote
    if (!header && f[4] == "MatMul_ffn1") {
      f[8] = plus(f[8], add_us, 3);
      ++changed;
    }
    k << join(f) << "\n";
  }
  REQUIRE(changed == 5);
  std::istringstream steps(read(fixture_run() / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv"));
  std::ofstream s(prof / "step_trace_time.csv");
  for (bool header = true; std::getline(steps, line); header = false) {
    auto f = split(line, 8);  // Step,Computing,...,Free,Stage,Bubble
    if (!header) {
      f[1] = plus(f[1], add_us, 1);
      f[6] = plus(f[6], add_us, 1);
    }
    s << join(f) << "\n";
  }
  return out;
}

const v1::FindingChange* finding_of_rule(const v1::RunComparison& c, const std::string& rule) {
  for (const auto& f : c.findings()) {
    if (f.rule() == rule) return &f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("an op lengthened in the next run shows as its hand-computed deltas") {
  TempDir dir;
  auto second = lengthened_run(dir, 100);
  std::string store = (dir.path() / "perf.db").string();
  // Input paths: each analysed into the store first (neither is stored yet).
  auto c = compare_json({fixture_run().string(), second.string(), "--store", store});
  CHECK(c.a().id() != c.b().id());
  CHECK(c.same_device());
  CHECK(c.a().job() == c.b().job());
  // Step time: the mean of Computing + Communication(Not Overlapped) + Free over the 5 steps,
  // 1637.7 µs (the Stage column); every step is 100 µs longer in the second run.
  CHECK(c.a().step_time_us() == Approx(1637.7));
  CHECK(c.step_time_delta_us() == Approx(100.0));
  CHECK(c.step_time_change() == Approx(100.0 / 1637.7));
  REQUIRE(c.breakdown_size() == 1);  // one rank: the whole run only
  const auto& whole = c.breakdown(0);
  CHECK(whole.rank() == -1);
  CHECK(whole.a().source() == "step_trace_time");
  CHECK(whole.a().steps() == 5);
  CHECK(whole.a().computing_us() == Approx(5613.5 / 5));  // 1100.9 + 1111.8 + ... + 1144.5
  CHECK(whole.b().computing_us() - whole.a().computing_us() == Approx(100.0));
  CHECK(whole.b().comm_exposed_us() == Approx(whole.a().comm_exposed_us()));  // 165 µs
  CHECK(whole.a().comm_exposed_us() == Approx(165.0));
  CHECK(whole.b().idle_us() == Approx(350.0));
  CHECK(whole.b().step_us() - whole.a().step_us() == Approx(100.0));
  CHECK(whole.b().other_us() == 0);
  // Ops: only MatMul_ffn1 changed, 240 µs x (1.01 + ... + 1.05) = 1236 µs -> 1736 µs.
  REQUIRE(c.ops_size() == 1);
  const auto& op = c.ops(0);
  CHECK(op.kind() == "op");
  CHECK(op.name() == "MatMul_ffn1");
  CHECK(op.change() == "changed");
  CHECK(op.count_a() == 5);
  CHECK(op.count_b() == 5);
  CHECK(op.total_us_a() == Approx(1236.0));
  CHECK(op.total_delta_us() == Approx(500.0));
  REQUIRE(op.has_step_delta_us());
  CHECK(op.step_us_a() == Approx(1236.0 / 5));
  CHECK(op.step_delta_us() == Approx(100.0));
  CHECK(c.sort() == "step");

  SECTION("the same comparison by run id, as text and as one self-contained HTML file") {
    auto ids = compare_json(
        {std::to_string(c.a().id()), std::to_string(c.b().id()), "--store", store, "--top", "3"});
    CHECK(ids.ops_size() == 1);
    CHECK(ids.top() == 3);
    CHECK(ids.step_time_delta_us() == Approx(100.0));
    auto text = compare({std::to_string(c.a().id()), std::to_string(c.b().id()), "--store", store});
    REQUIRE(text.code == 0);
    CHECK_THAT(text.out, Catch::Contains("1.64 ms -> 1.74 ms  +100.0 µs (+6.1 %)"));
    CHECK_THAT(text.out, Catch::Contains("+100.0 µs per step (247.2 µs -> 347.2 µs)"));
    CHECK_THAT(text.out, Catch::Contains("MatMul_ffn1"));
    auto html_path = dir.path() / "compare.html";
    auto html = compare({std::to_string(c.a().id()), std::to_string(c.b().id()), "--store", store,
                         "--format", "html", "-o", html_path.string()});
    REQUIRE(html.code == 0);
    std::string page = read(html_path);
    CHECK_THAT(page, Catch::StartsWith("<!DOCTYPE html>"));
    CHECK_THAT(page, Catch::Contains("<style>"));
    CHECK_THAT(page, !Catch::Contains("<script"));  // nothing to run or fetch
    CHECK_THAT(page, !Catch::Contains("http"));
    CHECK_THAT(page, Catch::Contains("<td>MatMul_ffn1</td>"));
    CHECK_THAT(page, Catch::Contains("<td class=\"num\">+100.0 µs</td>"));
  }

  SECTION("--sort total orders by the change of total time") {
    auto total = compare_json(
        {fixture_run().string(), second.string(), "--store", store, "--sort", "total"});
    CHECK(total.sort() == "total");
    REQUIRE(total.ops_size() == 1);
    CHECK(total.ops(0).total_delta_us() == Approx(500.0));
  }
}

TEST_CASE("a run compared with itself has zero deltas and no changed finding") {
  TempDir dir;
  auto c = compare_json({fixture_run().string(), fixture_run().string(), "--store",
                         (dir.path() / "perf.db").string()});
  CHECK(c.a().id() == c.b().id());
  CHECK(c.step_time_delta_us() == 0);
  CHECK(c.step_time_change() == 0);
  REQUIRE(c.breakdown_size() == 1);
  CHECK(c.breakdown(0).a().step_us() == c.breakdown(0).b().step_us());
  CHECK(c.ops_size() == 0);
  REQUIRE(c.findings_size() > 0);
  for (const auto& f : c.findings()) {
    INFO(f.rule());
    CHECK(f.change() == "unchanged");
    CHECK(f.gain_us_a() == f.gain_us_b());
  }
}

TEST_CASE("findings that appeared, disappeared and changed between two different runs") {
  TempDir dir;
  auto c = compare_json({(source_dir() / "examples/resnet50_rank0_ascend_pt").string(),
                         fixture_run().string()});  // no --store: a temporary one
  CHECK(c.same_device());                           // both Ascend, neither names its chip
  // The ResNet example's SGD optimizer step has a fused NPU implementation; the toy transformer
  // block has no optimizer step but a MatMul followed by Gelu, which a UB fusion pass fuses.
  auto* gone = finding_of_rule(c, "fused_optimizer");
  REQUIRE(gone);
  CHECK(gone->change() == "disappeared");
  CHECK(gone->gain_share_b() == 0);
  auto* fused = finding_of_rule(c, "ub_fusion_pass");
  REQUIRE(fused);
  CHECK(fused->change() == "appeared");
  CHECK(fused->severity_a() == v1::SEVERITY_UNSPECIFIED);
  // Both runs leave the device idle, ResNet far longer: the same finding id, another share.
  auto* idle = finding_of_rule(c, "free_time");
  REQUIRE(idle);
  CHECK(idle->change() == "changed");
  CHECK_THAT(idle->detail(), Catch::Contains("gain share"));
  // Findings are listed appeared, disappeared, changed, unchanged.
  std::string order;
  for (const auto& f : c.findings()) {
    if (order.empty() || order.back() != f.change()[0]) order += f.change()[0];
  }
  CHECK(order == "adc");
}

TEST_CASE("runs on different devices are compared, and the report says so") {
  TempDir dir;
  auto c = compare_json({fixture_run().string(),
                         (source_dir() / "tests/fixtures/torch113/mlp_cpu_trace.json.gz").string(),
                         "--store", (dir.path() / "perf.db").string()});
  CHECK_FALSE(c.same_device());
  std::string notes;
  for (const auto& n : c.notes()) notes += n + "\n";
  CHECK_THAT(notes, Catch::Contains("different devices"));
  CHECK_THAT(notes, Catch::Contains("ascend"));
  CHECK_THAT(notes, Catch::Contains("cpu"));
  // The CPU trace has no device to break down: said in the breakdown, not as a caveat.
  CHECK_THAT(notes, !Catch::Contains("has no step breakdown"));
  REQUIRE(c.breakdown_size() == 1);
  CHECK(c.breakdown(0).has_a());
  CHECK(c.breakdown(0).absent_b() == "no device breakdown (CPU-only run)");
  // The Ascend ops are only in A, the CPU ops only in B.
  bool op_gone = false, cpu_op_new = false;
  for (const auto& d : c.ops()) {
    if (d.kind() == "op") op_gone = d.change() == "disappeared";
    if (d.kind() == "cpu_op") cpu_op_new = d.change() == "appeared";
  }
  CHECK(op_gone);
  CHECK(cpu_op_new);
}

TEST_CASE("compare: unknown runs and bad usage are clear errors") {
  TempDir dir;
  std::string store = (dir.path() / "perf.db").string();
  auto stored = compare_json({fixture_run().string(), fixture_run().string(), "--store", store});
  auto r = compare({std::to_string(stored.a().id()), "99", "--store", store});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("no run 99 in the store"));
  r = compare({"1", "2"});
  CHECK(r.code == 2);
  CHECK_THAT(r.err, Catch::Contains("run id 1 needs --store"));
  CHECK(compare({"1"}).code == 2);
  CHECK(compare({"1", "2", "--store", store, "--format", "yaml"}).code == 2);
  CHECK(compare({"1", "2", "--store", store, "--top", "0"}).code == 2);
  CHECK(compare({"1", "2", "--store", store, "--sort", "name"}).code == 2);
  r = compare({fixture_run().string(), "/nonexistent/run", "--store", store});
  CHECK(r.code == 1);
  CHECK_THAT(r.err, Catch::Contains("/nonexistent/run"));
}

TEST_CASE("compare_findings: appeared, disappeared, changed by severity or gain share") {
  auto row = [](const std::string& id, int severity, double share) {
    store::FindingRow r;
    r.id = id;
    r.pack = "p";
    r.rule = "rule_" + id;
    r.severity = severity;
    r.gain_share = share;
    r.gain_us = share * 1000;
    return r;
  };
  const int high = v1::SEVERITY_HIGH, medium = v1::SEVERITY_MEDIUM;
  std::vector<store::FindingRow> a = {row("kept", high, 0.20), row("moved", high, 0.20),
                                      row("milder", high, 0.20), row("gone", medium, 0.05)};
  std::vector<store::FindingRow> b = {row("new", medium, 0.10), row("kept", high, 0.21),
                                      row("moved", high, 0.15), row("milder", medium, 0.20)};
  auto changes = app::compare_findings(a, b);
  REQUIRE(changes.size() == 5);
  CHECK(changes[0].id() == "new");
  CHECK(changes[0].change() == "appeared");
  CHECK(changes[1].id() == "gone");
  CHECK(changes[1].change() == "disappeared");
  CHECK(changes[1].gain_share_a() == Approx(0.05));
  CHECK(changes[2].id() == "moved");  // 20 % -> 15 %: moved by 25 % of a's share
  CHECK(changes[2].change() == "changed");
  CHECK(changes[2].detail() == "gain share 20.0 % -> 15.0 %");
  CHECK(changes[3].id() == "milder");
  CHECK(changes[3].detail() == "severity high -> medium");
  CHECK(changes[4].id() == "kept");  // 20 % -> 21 %: within 10 % of a's share
  CHECK(changes[4].change() == "unchanged");
}

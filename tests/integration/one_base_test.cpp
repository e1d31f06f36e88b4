// One report, one base (issue 26 item 18): every gain of a report is stated on the one step the
// report names (`base`), whatever the pack and whatever mix of step sources the inputs hold.
// The mstt folder holds rank 0's trace_view.json (one 14.09 ms ProfilerStep span) beside a
// cluster_step_trace_time.csv of 8 ranks (one step each, about 1.7 s): the base was the span,
// the cluster and iteration findings were shares of a 1.50 s "mean rank step" that mixed rank
// 0's span with the other ranks' cluster rows. The numbers below are the CSV's, by hand.
#include <fstream>
#include <sstream>

#include "cli_support.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

std::string sample(const std::string& rel) {
  return (samples_dir() / rel).string();
}

// Every finding with a gain has the share gain / base: one base for the whole report.
void check_one_base(const perfsage::v1::AnalysisReport& report) {
  REQUIRE(report.base().us() > 0);
  for (const auto& f : report.recommendations()) {
    if (f.estimated_gain_us() == 0) continue;
    INFO(f.pack() << "/" << f.rule() << ": gain " << f.estimated_gain_us() << " us, share "
                  << f.estimated_gain_share() << ", base " << report.base().us() << " us");
    CHECK(f.estimated_gain_share() ==
          Approx(f.estimated_gain_us() / report.base().us()).epsilon(1e-6));
  }
}

// The cluster CSV of the mstt sample with rank 4's Computing (and Stage) `add_us` longer.
fs::path slower_rank4(const TempDir& dir, double add_us) {
  std::ifstream in(samples_dir() / "ascend/mstt/cluster_step_trace_time.csv");
  fs::path out = dir.path() / "cluster_step_trace_time.csv";
  std::ofstream os(out);
  std::string line;
  int changed = 0;
  while (std::getline(in, line)) {
    if (line.rfind(",rank,4,", 0) == 0) {
      std::vector<std::string> f;
      std::stringstream ss(line);
      for (std::string cell; std::getline(ss, cell, ',');) f.push_back(cell);
      f[3] = std::to_string(std::stod(f[3]) + add_us);  // Computing
      f[8] = std::to_string(std::stod(f[8]) + add_us);  // Stage
      line.clear();
      for (size_t i = 0; i < f.size(); ++i) line += (i ? "," : "") + f[i];
      ++changed;
    }
    os << line << "\n";
  }
  REQUIRE(changed == 1);
  return out;
}

}  // namespace

TEST_CASE("the mstt folder: one base, the 8 ranks' mean step, checked by hand") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json({sample("ascend/mstt")});
  // The step source on the most ranks is the cluster CSV: 8 ranks, one step each, of
  // Computing + Communication(Not Overlapped) + Free (its Stage column): 1,754,646 (rank 0),
  // 1,702,432, 1,720,947, 1,712,204, 1,690,933, 1,730,579, 1,716,116, 1,682,031 us; mean
  // 1,713,736 us.
  CHECK(report.base().kind() == "step");
  CHECK(report.base().us() == Approx(1713736.1).epsilon(1e-6));
  CHECK(report.base().ranks() == 8);
  CHECK(report.base().steps() == 1);
  CHECK(report.run().steps() == 1);
  CHECK(report.run().step_time_us() == Approx(1713736.1).epsilon(1e-6));
  CHECK_THAT(report.base().text(), Catch::Contains("on 8 rank(s), 1.71 s"));
  check_one_base(report);
  // Exposed communication spread: rank 5 756,374.86 - rank 1 133,385.98 = 622,988.88 us,
  // 36.35 % of the base; the free spread 1,488,610.06 - 892,836.90 = 595,773.16 us, 34.76 %.
  auto comm = findings(report, "cluster", "slow_rank_communication");
  REQUIRE(comm.size() == 1);
  CHECK(comm[0]->estimated_gain_us() == Approx(622988.88).epsilon(1e-6));
  CHECK(comm[0]->estimated_gain_share() == Approx(0.36353).epsilon(1e-4));
  CHECK(evidence_number(*comm[0], "mean_total_us") == Approx(report.base().us()));
  auto free = findings(report, "cluster", "slow_rank_free");
  REQUIRE(free.size() == 1);
  CHECK(free[0]->estimated_gain_us() == Approx(595773.16).epsilon(1e-6));
  // Computing spreads 1,584.9 us between the ranks (0.09 %): balanced, as the pack's own test
  // of this sample says; rank 0's 1.79 ms computing of its trace_view span is not one of them.
  CHECK(findings(report, "cluster", "slow_rank_computing").empty());
  // Per step and rank: the mean exposed communication 3,630,985.17 / 8 = 453,873.1 us (26.5 %)
  // and free 9,431,940.07 / 8 = 1,178,992.5 us (68.8 %) of the same step.
  auto exposed = findings(report, "training_iteration", "exposed_communication");
  REQUIRE(exposed.size() == 1);
  CHECK(exposed[0]->estimated_gain_us() == Approx(453873.1).epsilon(1e-6));
  CHECK(evidence_number(*exposed[0], "step_us") == Approx(report.base().us()));
  auto host = findings(report, "training_iteration", "host_bound");
  REQUIRE(host.size() == 1);
  CHECK(host[0]->estimated_gain_us() == Approx(1178992.5).epsilon(1e-6));
  CHECK_THAT(host[0]->message(), Catch::Contains("from cluster_step_trace_time"));
}

TEST_CASE("a slow rank among 8: the other 7 ranks wait for it") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  // Rank 4 computes 200 ms longer: 281,662.2 against rank 3's 80,077.3, a spread of 201,584.9
  // us.
  auto csv = slower_rank4(dir, 200000);
  auto report = analyze_json({csv.string(), "--kb", "cluster"});
  check_one_base(report);
  auto slow = findings(report, "cluster", "slow_rank_computing");
  REQUIRE(slow.size() == 1);
  CHECK(has_subject(*slow[0], "rank 4"));
  CHECK(evidence_number(*slow[0], "spread_us") == Approx(201584.9).epsilon(1e-6));
  CHECK(evidence_number(*slow[0], "others") == 7);
  CHECK_THAT(slow[0]->message(), Catch::Contains("The other 7 rank(s) wait for rank 4"));
}

TEST_CASE("one base on the other multi-rank and step_trace_time inputs") {
  // Two gloo ranks (ProfilerStep spans on each), the daemon fixture (step_trace_time without
  // durations: its steps are the sum of their parts, 1,637.7 us, not the run's wall span).
  auto gloo = analyze_json({(source_dir() / "tests/fixtures/torch113/gloo").string()});
  CHECK(gloo.base().kind() == "step");
  CHECK(gloo.base().ranks() == 2);
  check_one_base(gloo);
  auto fixture = analyze_json({(source_dir() / "tests/fixtures/daemon/ascend_run").string()});
  CHECK(fixture.base().kind() == "step");
  CHECK(fixture.base().us() == Approx(1637.7));
  CHECK(fixture.base().steps() == 5);
  check_one_base(fixture);
  auto free = findings(fixture, "training_iteration", "free_time");
  REQUIRE(free.size() == 1);
  CHECK(evidence_number(*free[0], "step_us") == Approx(fixture.base().us()));
}

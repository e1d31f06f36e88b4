// CPU-only PyTorch runs: autograd-profiler traces (PyTorch without Kineto, Debian's
// python3-torch) keep every event as a CPU op with its nesting, self times agree with the
// profiler's own "Self CPU", and the run gets CPU-side advice instead of "skipped".
#include "cli_support.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {
fs::path fixture(const std::string& rel) {
  return source_dir() / "tests" / "fixtures" / "torch113" / rel;
}

std::string query(const std::string& store, const std::string& sql) {
  auto q = run_command("query", {"--store", store, "--header", "0", sql});
  REQUIRE(q.code == 0);
  return q.out;
}
}  // namespace

TEST_CASE("autograd-profiler trace: every event a CPU op, steps, self time as torch counts it") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto report = analyze_json({fixture("mish_cpu_trace.json.gz").string(), "--store", store});
  // 78,600 complete events without "cat" on "CPU functions", four ProfilerStep#N among them.
  CHECK(query(store, "SELECT count(*) FROM host_events WHERE kind = 'cpu_op'") == "78600\n");
  CHECK(query(store, "SELECT count(*) FROM steps WHERE source = 'ProfilerStep'") == "4\n");
  // Self CPU time per op from torch's key_averages() when the trace was recorded
  // (mish_cpu_trace.expect.json): equal for the ops that take the time.
  for (auto [name, self_us] :
       std::vector<std::pair<const char*, int64_t>>{{"aten::mm", 226628},
                                                    {"aten::addmm", 86074},
                                                    {"aten::mish", 29192},
                                                    {"aten::mish_backward", 41937},
                                                    {"aten::_to_copy", 86257}}) {
    INFO(name);
    CHECK(query(store, std::string("SELECT self_ns / 1000 FROM host_op_self WHERE name = '") +
                           name + "'") == std::to_string(self_us) + "\n");
  }
  // The DataLoader span: torch says 106,890 us; the trace's microsecond rounding gives 106,953.
  CHECK(std::stod(query(store,
                        "SELECT self_ns / 1000.0 FROM host_op_self WHERE name LIKE "
                        "'enumerate(DataLoader)%'")) == Approx(106890).epsilon(0.001));

  // CPU-side advice: data loading (449.69 ms of 4 x 221.62 ms steps), Mish forward and
  // backward as one finding, the op where the CPU time goes.
  auto loader = findings(report, "cpu_run", "cpu_dataloader");
  REQUIRE(loader.size() == 1);
  CHECK(loader[0]->estimated_gain_us() == Approx(449688.0 / 4).epsilon(1e-6));
  auto mish = findings(report, "cpu_run", "cpu_activation");
  REQUIRE(mish.size() == 1);
  CHECK(has_subject(*mish[0], "aten::mish"));
  CHECK(mish[0]->estimated_gain_us() == Approx((29192.0 + 41937.0) * 0.9 / 4).epsilon(1e-6));
  CHECK(findings(report, "cpu_run", "cpu_activation_inference").empty());
  auto hot = findings(report, "cpu_run", "cpu_hot_op");
  REQUIRE(hot.size() == 1);
  CHECK(has_subject(*hot[0], "aten::mm"));
  for (const auto& p : report.packs())
    if (p.name() == "cpu_run") CHECK(p.status() == "ok");
}

TEST_CASE("the small MLP trace: matmul-bound, no data-loading or activation advice") {
  auto report = analyze_json({fixture("mlp_cpu_trace.json.gz").string()});
  CHECK(report.run().steps() == 4);
  auto hot = findings(report, "cpu_run", "cpu_hot_op");
  REQUIRE(hot.size() == 1);
  CHECK(has_subject(*hot[0], "aten::mm"));
  // The DataLoader takes 3.9 ms of 281.5 ms (1.4 %): below tb_plugin's 5 %.
  CHECK(findings(report, "cpu_run", "cpu_dataloader").empty());
  // Its two GELU layers take 1.9 + 1.1 ms of 281.5 ms (1.1 %): below 3 %.
  CHECK(findings(report, "cpu_run", "cpu_activation").empty());
  CHECK(findings(report, "cpu_run", "cpu_activation_inference").empty());
}

TEST_CASE("GELU training on the CPU: the activation is reported by its share, not by its name") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto report = analyze_json({fixture("gelu_cpu_trace.json.gz").string(), "--store", store});
  CHECK(report.run().steps() == 3);
  // Self CPU time from torch's key_averages() in the same run (activation_cpu_traces.expect.json).
  const double fwd = 2238, bwd = 2342;
  CHECK(query(store, "SELECT self_ns / 1000 FROM host_op_self WHERE name = 'aten::gelu'") ==
        "2238\n");
  CHECK(
      query(store, "SELECT self_ns / 1000 FROM host_op_self WHERE name = 'aten::gelu_backward'") ==
      "2342\n");
  // 2.24 + 2.34 ms of a 3 x 45.0 ms profile: 3.4 % of the step, above 3 %. ReLU is assumed to
  // cost a quarter of GELU (measured 10-21 %), so the gain is three quarters of it: low.
  auto act = findings(report, "cpu_run", "cpu_activation");
  REQUIRE(act.size() == 1);
  CHECK(has_subject(*act[0], "aten::gelu"));
  CHECK(evidence_number(*act[0], "share") == Approx((fwd + bwd) / 135004.0).epsilon(1e-3));
  CHECK(act[0]->estimated_gain_us() == Approx((fwd + bwd) * 0.75 / 3).epsilon(1e-3));
  CHECK(sev(*act[0]) == "low");
  CHECK(findings(report, "cpu_run", "cpu_activation_inference").empty());
  // The op table's matmuls are where the time goes; nothing else is reported.
  auto hot = findings(report, "cpu_run", "cpu_hot_op");
  REQUIRE(hot.size() == 1);
  CHECK(has_subject(*hot[0], "aten::addmm"));
  CHECK(report.recommendations_size() == 2);
}

TEST_CASE("SiLU in inference beside an LSTM: the activation is reported, the gates are not") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto report = analyze_json({fixture("silu_lstm_cpu_trace.json.gz").string(), "--store", store});
  const double silu = 17327;  // torch's self CPU time (activation_cpu_traces.expect.json)
  CHECK(query(store, "SELECT self_ns / 1000 FROM host_op_self WHERE name = 'aten::silu_'") ==
        "17327\n");
  // In-place SiLU, no backward: 17.3 ms of a 3 x 47.9 ms profile (12.1 %); gain 75 % of it.
  auto act = findings(report, "cpu_run", "cpu_activation_inference");
  REQUIRE(act.size() == 1);
  CHECK(has_subject(*act[0], "aten::silu_"));
  CHECK(act[0]->estimated_gain_us() == Approx(silu * 0.75 / 3).epsilon(1e-3));
  CHECK(sev(*act[0]) == "high");
  CHECK(findings(report, "cpu_run", "cpu_activation").empty());
  // The LSTM's gates run aten::sigmoid_ and aten::tanh: no finding names them, and an in-place
  // sigmoid followed by a Mul is not taken for a hand-written x * sigmoid(x).
  for (const auto& r : report.recommendations())
    for (const auto& subject : r.subjects()) {
      INFO(r.rule() << " " << subject);
      CHECK(subject.find("sigmoid") == std::string::npos);
      CHECK(subject.find("tanh") == std::string::npos);
    }
  CHECK(query(store, "SELECT count(*) FROM activation_patterns") == "0\n");
  CHECK(findings(report, "activation", "decomposed_silu").empty());
}

TEST_CASE("HTA's CPU-only gloo trace: communication-bound step, no device findings") {
  PERFSAGE_REQUIRE_SAMPLES();
  auto report = analyze_json(
      {(samples_dir() / "kineto/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz")
           .string()});
  // Step 551 lasts 210,109 us; the busiest gloo thread (3553) is in flight 173,209 us of it.
  auto comm = findings(report, "cpu_run", "cpu_collective_bound");
  REQUIRE(comm.size() == 1);
  CHECK(evidence_number(*comm[0], "busy_share") == Approx(173209.0 / 210109.0).epsilon(1e-4));
  CHECK(sev(*comm[0]) == "medium");
  for (const auto& r : report.recommendations()) CHECK(r.pack() == "cpu_run");
}

TEST_CASE("the gloo trace as two ranks: the same share, said for both ranks") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  std::string text = perfsage::store::read_file(
      samples_dir() / "kineto/hta__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz");
  auto at = text.find("\"rank\": 34");
  REQUIRE(at != std::string::npos);
  dir.write("r0/rank34.json", text);
  text.replace(at, 10, "\"rank\": 35");
  dir.write("r1/rank35.json", text);
  auto report = analyze_json({dir.path().string()});
  CHECK(report.run().ranks() == 2);
  auto comm = findings(report, "cpu_run", "cpu_collective_bound");
  REQUIRE(comm.size() == 1);
  CHECK(evidence_number(*comm[0], "busy_share") == Approx(173209.0 / 210109.0).epsilon(1e-4));
  CHECK(evidence_number(*comm[0], "ranks") == 2);
}

TEST_CASE("activations written out by hand on the CPU: chains by their share of the step") {
  TempDir dir;
  auto store = (dir.path() / "s.db").string();
  auto report =
      analyze_json({fixture("hand_activation_cpu_trace.json.gz").string(), "--store", store});
  // Chain times by hand from the trace's top-level ops (three forward passes): Mish 11,750 us,
  // GELU in BERT's order (mul, div, erf, add, mul; the scalar conversions nested in aten::to
  // are skipped) 17,084 us, SiLU 4,544 us; three steps of 217,222 us in all. Without device
  // time the shares are of the step.
  const double steps_us = 217222;
  auto check = [&](const char* rule, double chain_us, double kept, const char* severity) {
    INFO(rule);
    auto f = findings(report, "activation", rule);
    REQUIRE(f.size() == 1);
    CHECK(evidence_number(*f[0], "total_us") == Approx(chain_us));
    CHECK(evidence_number(*f[0], "share") == Approx(chain_us / steps_us).epsilon(1e-6));
    CHECK_THAT(f[0]->message(), Catch::Contains("of the step"));
    CHECK(f[0]->estimated_gain_us() == Approx(chain_us * (1 - kept) / 3).epsilon(1e-6));
    CHECK(sev(*f[0]) == severity);
  };
  check("decomposed_gelu", 17084, 1.0 / 5, "high");    // gain 4.56 ms, 6.3 % of the step
  check("decomposed_mish", 11750, 1.0 / 3, "medium");  // 2.61 ms, 3.6 %
  check("decomposed_silu", 4544, 1.0 / 2, "low");      // 0.76 ms, 1.0 %
  // The ops inside the chains are not also reported one by one: sigmoid, tanh and softplus are
  // not activations cpu_run names.
  CHECK(findings(report, "cpu_run", "cpu_activation").empty());
  CHECK(findings(report, "cpu_run", "cpu_activation_inference").empty());
  CHECK(findings(report, "activation", "mish_in_graph").empty());
}

TEST_CASE("two gloo ranks from Debian's torch: collectives are not the hot op, not comm-bound") {
  // DDP over loopback (gloo/make_gloo_cpu_traces.py): per step the busiest gloo work thread is
  // in flight 22-51 % of the step (31 % on average, by hand from the traces), so the step is
  // not communication-bound; gloo:all_reduce has the most self time summed over its two
  // threads (43 %), but it is communication, not where the CPU computes.
  auto report = analyze_json({fixture("gloo").string()});
  CHECK(report.run().ranks() == 2);
  CHECK(report.run().device() == "cpu");
  CHECK(findings(report, "cpu_run", "cpu_collective_bound").empty());
  auto hot = findings(report, "cpu_run", "cpu_hot_op");
  REQUIRE(hot.size() == 1);
  CHECK(has_subject(*hot[0], "aten::mm"));
  for (const auto& r : report.recommendations())
    for (const auto& s : r.subjects()) {
      CHECK(s.rfind("gloo:", 0) == std::string::npos);
      CHECK(s.rfind("c10d::", 0) == std::string::npos);
    }
}

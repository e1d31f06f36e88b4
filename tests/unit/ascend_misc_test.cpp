#include "ascend_test_util.h"
#include "collectors/ascend/layout.h"

using namespace perfsage::collectors;
using perfsage::test::ascend_sample;
using perfsage::test::Store;
using perfsage::test::TempDir;

TEST_CASE("cluster_step_trace_time sample: eight ranks, the stage row is not a rank") {
  PERFSAGE_REQUIRE_SAMPLES();
  Store s;
  s.ingest({ascend_sample("mstt/cluster_step_trace_time.csv")});
  CHECK(s.integer("SELECT count(*) FROM steps WHERE source='cluster_step_trace_time'") == 8);
  CHECK(s.integer("SELECT count(DISTINCT rank) FROM steps") == 8);
  CHECK(s.integer("SELECT max(rank) FROM steps") == 7);
  CHECK(s.integer("SELECT count(*) FROM ranks") == 8);
  CHECK(s.integer("SELECT min(world_size) FROM ranks") == 8);
  CHECK(s.real("SELECT free_us FROM steps WHERE rank=1") == Approx(1488610.05875));
  CHECK(s.real("SELECT comm_not_overlapped_us FROM steps WHERE rank=5") == Approx(756374.86));
  CHECK(s.real("SELECT min(computing_us) FROM steps") == Approx(80077.26998437475));
  CHECK(s.integer("SELECT count(*) FROM steps WHERE step<>0") == 0);
}

TEST_CASE("step_trace_time.csv of one rank: breakdown per step, rank from the folder") {
  TempDir dir;
  auto p = dir.write("rank_2/ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
                     "Step,Computing,Communication(Not Overlapped),Overlapped,Communication,Free,"
                     "Stage,Bubble,Communication(Not Overlapped and Exclude Receive),Preparing\n"
                     "1,100.5,20,5,25,30,0,0,20,1\n2,110,N/A,0,0,10,0,0,0,1\n");
  Store s;
  s.ingest({p});
  CHECK(s.integer("SELECT count(*) FROM steps") == 2);
  CHECK(s.integer("SELECT min(rank) FROM steps") == 2);
  CHECK(s.real("SELECT computing_us FROM steps WHERE step=1") == 100.5);
  CHECK(s.text("SELECT comm_not_overlapped_us FROM steps WHERE step=2") == "<null>");
  CHECK(s.real("SELECT overlapped_us FROM steps WHERE step=1") == 5);
}

TEST_CASE("msprof step_trace iterations become steps with start and duration") {
  TempDir dir;
  auto p = dir.write("step_trace_20240101000000.csv",
                     "Device_id,Iteration ID,FP Start(us),BP End(us),Iteration End(us),"
                     "Iteration Time(us),FP to BP Time(us),Iteration Refresh(us),"
                     "Data Aug Bound(us),Model ID,Reduce Start(us),Reduce Duration(us)\n"
                     "0,3,1000,1500,2000,1200,500,10,N/A,1,1600,300\n");
  Store s;
  s.ingest({p});
  CHECK(s.integer("SELECT step FROM steps") == 3);
  CHECK(s.integer("SELECT dur_ns FROM steps") == 1200000);
  CHECK(s.integer("SELECT start_ns FROM steps") == 800000);
  CHECK(s.real("SELECT comm_us FROM steps") == 300);
}

TEST_CASE("fusion_result sample: string counts become integers") {
  PERFSAGE_REQUIRE_SAMPLES();
  Store s;
  s.ingest({ascend_sample("oam-tools/fusion_result.json")});
  CHECK(s.integer("SELECT count(*) FROM fusion_stats") == 2);
  CHECK(s.integer("SELECT match_times FROM fusion_stats WHERE pass='ConstToAttrGatherV2Fusion'") ==
        1);
  CHECK(s.integer("SELECT effect_times FROM fusion_stats WHERE "
                  "pass='ConstToAttrGatherV2Fusion'") == 0);
  CHECK(s.integer("SELECT effect_times FROM fusion_stats WHERE "
                  "pass='RefreshInt64ToInt32FusionPass'") == 1);
  CHECK(s.text("SELECT graph FROM fusion_stats LIMIT 1") == "0_11");
  CHECK(s.text("SELECT DISTINCT kind FROM fusion_stats") == "graph_fusion");
}

TEST_CASE("fusion_result as a single object with ub_fusion; bad counts") {
  TempDir dir;
  auto p = dir.write("fusion_result.json",
                     R"({"session_and_graph_id":"1_2","ub_fusion":{"TbeConvReluFusion":)"
                     R"({"match_times":"3","effect_times":"2","repository_hit_times":"0"},)"
                     R"("Bad":{"match_times":"x","effect_times":"0"}}})");
  Store strict;
  CHECK_THROWS_WITH(strict.ingest({p}), Catch::Contains("count is not an integer"));
  Store s;
  s.ingest({p}, Mode::lenient);
  CHECK(s.integer("SELECT count(*) FROM fusion_stats") == 1);
  CHECK(s.text("SELECT kind FROM fusion_stats") == "ub_fusion");
  CHECK(s.integer("SELECT match_times FROM fusion_stats") == 3);
}

TEST_CASE("info.json: core counts, frequency and chip; .done markers ignored") {
  TempDir dir;
  auto p =
      dir.write("PROF_000001_20240101000000000_x/device_1/info.json.1",
                R"({"platform_version":"5","DeviceInfo":[{"id":1,"env_type":3,)"
                R"("ai_core_num":24,"aiv_num":48,"aic_frequency":"1800","hwts_frequency":"50"}]})");
  dir.write("PROF_000001_20240101000000000_x/device_1/info.json.1.done", "");
  Store s;
  s.ingest({dir.path()});
  CHECK(s.integer("SELECT count(*) FROM hardware") == 1);
  CHECK(s.integer("SELECT ai_core_num FROM hardware") == 24);
  CHECK(s.integer("SELECT aiv_num FROM hardware") == 48);
  CHECK(s.real("SELECT freq_mhz FROM hardware") == 1800);
  CHECK(s.integer("SELECT device_id FROM hardware") == 1);
  CHECK(s.integer("SELECT rank FROM hardware") == 1);
  CHECK(s.text("SELECT chip FROM hardware") == "CHIP_V4_1_0");
  CHECK(s.text("SELECT name FROM hardware") == "Ascend910B");
  CHECK(s.text("SELECT json_extract(props,'$.hwts_frequency') FROM hardware") == "50");
  CHECK(s.result.hints.chip == "Ascend910B");
  (void)p;
}

TEST_CASE("communication.json: time row per op plus one row per transport") {
  TempDir dir;
  auto p = dir.write("r_ascend_pt/ASCEND_PROFILER_OUTPUT/communication.json", R"J({
    "step1": {"collective": {
      "hcom_allReduce__445_2@12345": {
        "Communication Time Info": {"Start Timestamp(us)": 1699529623114016.8,
          "Elapse Time(ms)": 1.47084, "Transit Time(ms)": 0.5, "Wait Time(ms)": 0.9,
          "Synchronization Time(ms)": 0.1, "Idle Time(ms)": 0.07, "Wait Time Ratio": 0.64,
          "Synchronization Time Ratio": 0.1},
        "Communication Bandwidth Info": {
          "HCCS": {"Transit Size(MB)": 2.0, "Transit Time(ms)": 0.5, "Bandwidth(GB/s)": 4.19,
                   "Large Packet Ratio": 0.0, "Size Distribution": {"2.0": [1, 0.5]}},
          "RDMA": {"Transit Size(MB)": 0, "Transit Time(ms)": 0, "Bandwidth(GB/s)": 0,
                   "Large Packet Ratio": 0, "Size Distribution": {}}}},
      "Total Op Info": {"Communication Time Info": {"Elapse Time(ms)": 1.47084}}},
     "p2p": {}}})J");
  Store s;
  s.ingest({p});
  CHECK(s.integer("SELECT count(*) FROM comm_ops") == 3);
  CHECK(s.integer("SELECT count(*) FROM comm_ops WHERE transport IS NULL") == 1);
  CHECK(s.text("SELECT name FROM comm_ops WHERE transport IS NULL") == "hcom_allReduce__445_2");
  CHECK(s.integer("SELECT step FROM comm_ops WHERE transport IS NULL") == 1);
  CHECK(s.integer("SELECT start_ns FROM comm_ops WHERE transport IS NULL") == 1699529623114016800);
  CHECK(s.integer("SELECT dur_ns FROM comm_ops WHERE transport IS NULL") == 1470840);
  CHECK(s.real("SELECT wait_us FROM comm_ops WHERE transport IS NULL") == Approx(900));
  CHECK(s.real("SELECT bandwidth_gbps FROM comm_ops WHERE transport='HCCS'") == Approx(4.19));
  CHECK(s.real("SELECT bytes FROM comm_ops WHERE transport='HCCS'") == 2.0e6);  // MB of 10^6 B
  CHECK(s.text("SELECT packets FROM comm_ops WHERE transport='HCCS'") == "[[2,1,0.5]]");
  CHECK(s.real("SELECT large_packet_ratio FROM comm_ops WHERE transport='HCCS'") == 0.0);
  CHECK(s.text("SELECT type FROM comm_ops WHERE transport='HCCS'") == "collective");
}

TEST_CASE("op_statistic is recognised and validated, not stored") {
  TempDir dir;
  auto p = dir.write("op_statistic_20240101000000.csv",
                     "Device_id,Model Name,OP Type,Core Type,Count,Total Time(us),Avg Time(us),"
                     "Min Time(us),Max Time(us),Ratio(%)\n0,m,Cast,AI_CPU,7,785,112,74,198,0.2\n");
  Store s;
  s.ingest({p});
  REQUIRE(s.result.files.size() == 1);
  CHECK(s.result.files[0].collector == "ascend.op_statistic");
  CHECK(s.result.files[0].records == 0);
  CHECK_THAT(s.result.files[0].warnings.at(0), Catch::Contains("7 tasks"));
}

TEST_CASE("ranks come from rank_N, *_ascend_pt order or profiler_info_N, then device_N") {
  TempDir dir;
  auto base = dir.path();
  auto f = [&](const std::string& rel) { return dir.write(rel, "x"); };
  f("job/b_2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  f("job/a_1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  f("job/c_3_ascend_pt/profiler_info_6.json");
  f("job/c_3_ascend_pt/PROF_000001_1_x/device_2/summary/op_summary_0_1.csv");
  f("rank_4/PROF_1/device_0/summary/op_summary_0_1.csv");
  f("PROF_1/device_5/info.json.5");
  using ascend::locate;
  CHECK(locate(base / "job/a_1_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv").rank == 0);
  CHECK(locate(base / "job/b_2_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv").rank == 1);
  auto c = locate(base / "job/c_3_ascend_pt/PROF_000001_1_x/device_2/summary/op_summary_0_1.csv");
  CHECK(c.rank == 6);
  CHECK(c.device_id == 2);
  CHECK(locate(base / "rank_4/PROF_1/device_0/summary/op_summary_0_1.csv").rank == 4);
  CHECK(locate(base / "PROF_1/device_5/info.json.5").rank == 5);
  CHECK(locate(base / "loose.csv").rank == 0);
}

#include "ascend_test_util.h"
#include "collectors/ascend/op_columns.h"

using namespace perfsage::collectors;
using perfsage::test::ascend_sample;
using perfsage::test::Store;
using perfsage::test::TempDir;

TEST_CASE("kernel_details sample: every task row, AI CPU casts, HCCL nulls, exact times") {
  PERFSAGE_REQUIRE_SAMPLES();
  Store s;
  s.ingest({ascend_sample("mstt/kernel_details_arith_util.csv")});
  CHECK(s.integer("SELECT count(*) FROM op_tasks") == 591);
  CHECK(s.result.hints.device == "ascend");
  CHECK(s.result.hints.framework == "pytorch-npu");
  CHECK(s.result.files.at(0).collector == "ascend.op_table");

  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE core_type='AI_CPU'") == 7);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE core_type='AI_CPU' AND type='Cast' "
                  "AND output_dtypes='UINT64'") == 7);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE name='trans_Cast_5'") == 5);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE name='trans_Cast_18'") == 2);
  CHECK(s.text("SELECT input_shapes FROM op_tasks WHERE name='trans_Cast_5'") == "<null>");

  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE core_type='HCCL'") == 19);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE core_type='HCCL' AND task_id IS NULL "
                  "AND stream_id IS NULL AND metrics IS NULL") == 19);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE core_type='AI_VECTOR_CORE'") == 520);

  // Start 1699529622790614.8 us, duration 607.98 us, shape """544404480""".
  CHECK(s.integer("SELECT start_ns FROM op_tasks WHERE name='ZerosLike46'") == 1699529622790614800);
  CHECK(s.integer("SELECT dur_ns FROM op_tasks WHERE name='ZerosLike46'") == 607980);
  CHECK(s.text("SELECT input_shapes FROM op_tasks WHERE name='ZerosLike46'") == "544404480");
  CHECK(s.integer("SELECT block_dim FROM op_tasks WHERE name='ZerosLike46'") == 48);
  CHECK(s.integer("SELECT model_id FROM op_tasks WHERE name='ZerosLike46'") == 4294967295);
  CHECK(s.integer("SELECT step FROM op_tasks WHERE name='ZerosLike46'") == 1);
  // aic_vector_fops 0 + aiv_vector_fops 137176320; other metrics kept as JSON.
  CHECK(s.real("SELECT vector_fops FROM op_tasks WHERE name='ZerosLike46'") == 137176320.0);
  CHECK(s.text("SELECT json_extract(metrics, '$.aiv_vec_int32_ratio') FROM op_tasks "
               "WHERE name='ZerosLike46'") == "0.0822");
  CHECK(s.real("SELECT sum(dur_ns) FROM op_tasks WHERE core_type='HCCL'") / 1e9 ==
        Approx(0.346).epsilon(0.01));
}

TEST_CASE("minimal kernel_details sample: types derived from names") {
  PERFSAGE_REQUIRE_SAMPLES();
  Store s;
  s.ingest({ascend_sample("mstt/kernel_details_minimal_names.csv")});
  CHECK(s.integer("SELECT count(*) FROM op_tasks") == 8);
  CHECK(s.text("SELECT type FROM op_tasks WHERE name='trans_TransData_20'") == "TransData");
  CHECK(s.text("SELECT type FROM op_tasks WHERE name='trans_Cast_19'") == "Cast");
  CHECK(s.text("SELECT type FROM op_tasks WHERE name='Conv2D17'") == "Conv2D");
  CHECK(s.text("SELECT type FROM op_tasks WHERE name='Cast16'") == "Cast");
  CHECK(s.text("SELECT core_type FROM op_tasks WHERE name='Cast16'") == "UNKNOWN");
  CHECK(s.integer("SELECT sum(dur_ns) FROM op_tasks WHERE type='TransData'") == 31750);
  CHECK(s.integer("SELECT wait_ns FROM op_tasks WHERE name='trans_Cast_19'") == 199251950);
}

TEST_CASE("type from name covers instance suffixes of every shape") {
  using ascend::type_from_name;
  CHECK(type_from_name("trans_TransData_20") == "TransData");
  CHECK(type_from_name("Conv2D17") == "Conv2D");
  CHECK(type_from_name("hcom_allReduce__445_0") == "hcom_allReduce_");
  CHECK(type_from_name("atomic_memset-1_18_186609_1") == "atomic_memset");
  CHECK(type_from_name("aclnnCast_CastAiCpu_Cast") == "aclnnCast_CastAiCpu_Cast");
  CHECK(type_from_name("12") == "12");
  CHECK(ascend::normalise_dtypes("DT_BF16;INT64; DT_FLOAT") == "BF16;INT64;FLOAT");
  CHECK_FALSE(ascend::normalise_shapes("; ; ;"));
  CHECK(ascend::normalise_shapes("\"4,1025;;2\"") == "4,1025;;2");
}

TEST_CASE("op_summary spelling with BOM, CRLF, quoted tab-polluted times and unprefixed metrics") {
  TempDir dir;
  auto p = dir.write(
      "PROF_000001_20240101000000000_abc/device_3/summary/op_summary_0_1.csv",
      "\xEF\xBB\xBF"
      "Device_id,Model Name,Model ID,Task ID,Stream ID,Op Name,OP Type,OP State,Task Type,"
      "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num,Input Shapes,"
      "Input Data Types,Output Data Types,mac_ratio,vec_ratio,aic_mte2_ratio,aiv_mte2_ratio,"
      "read_main_memory_datas(KB),write_main_memory_datas(KB),HF32 Eligible\r\n"
      "3,m,1,10,2,MatMul_1,MatMul,static,AI_CORE,\"1704161511420306.491\t\",\"12.5\t\",0,24,"
      "\"\"\"8,16;16,8\"\"\",DT_FLOAT16;DT_FLOAT16,DT_FLOAT,0.5,0.1,0.3,0.7,2,1.5,NO\r\n"
      "3,m,1,11,2,Add_2,Add,dynamic,AI_VECTOR_CORE,1704161511420400,3,1,8,N/A,N/A,N/A,N/A,"
      "N/A,0.3,0.7,N/A,N/A,N/A\r\n");
  Store s;
  s.ingest({p});
  CHECK(s.result.hints.framework == "msprof");
  CHECK(s.integer("SELECT count(*) FROM op_tasks") == 2);
  CHECK(s.integer("SELECT start_ns FROM op_tasks WHERE name='MatMul_1'") == 1704161511420306491);
  CHECK(s.integer("SELECT dur_ns FROM op_tasks WHERE name='MatMul_1'") == 12500);
  CHECK(s.integer("SELECT device_id FROM op_tasks WHERE name='MatMul_1'") == 3);
  CHECK(s.integer("SELECT rank FROM op_tasks WHERE name='MatMul_1'") == 3);  // device_3
  CHECK(s.text("SELECT op_state FROM op_tasks WHERE name='Add_2'") == "dynamic");
  CHECK(s.text("SELECT input_shapes FROM op_tasks WHERE name='MatMul_1'") == "8,16;16,8");
  CHECK(s.text("SELECT input_dtypes FROM op_tasks WHERE name='MatMul_1'") == "FLOAT16;FLOAT16");
  CHECK(s.real("SELECT read_bytes FROM op_tasks WHERE name='MatMul_1'") == 2048.0);
  CHECK(s.real("SELECT write_bytes FROM op_tasks WHERE name='MatMul_1'") == 1536.0);
  CHECK(s.real("SELECT mac_ratio FROM op_tasks WHERE name='MatMul_1'") == 0.5);
  // The ratio of the core that ran the task is chosen; the other stays in metrics.
  CHECK(s.real("SELECT mte2_ratio FROM op_tasks WHERE name='MatMul_1'") == 0.3);
  CHECK(s.real("SELECT mte2_ratio FROM op_tasks WHERE name='Add_2'") == 0.7);
  CHECK(s.real("SELECT json_extract(metrics,'$.aic_mte2_ratio') FROM op_tasks "
               "WHERE name='Add_2'") == 0.3);
  CHECK(s.text("SELECT json_extract(metrics,'$.\"HF32 Eligible\"') FROM op_tasks "
               "WHERE name='MatMul_1'") == "NO");
}

TEST_CASE("missing required columns are a clear error naming the file and columns") {
  TempDir dir;
  auto p = dir.write("kernel_details.csv", "Name,Type,Accelerator Core,Start Time(us)\nA,B,C,1\n");
  Store s;
  CHECK_THROWS_WITH(s.ingest({p}), Catch::Contains("kernel_details.csv:line 1") &&
                                       Catch::Contains("missing required column(s): Duration(us)"));
  auto q = dir.write("op_summary_1.csv", "OP Type,Task Type,Task Duration(us)\nA,AI_CORE,1\n");
  CHECK_THROWS_WITH(s.ingest({q}),
                    Catch::Contains("missing required column(s): Name (or Op Name)"));
  auto r = dir.write("op_summary_2.csv", "Op Name,Task Duration(us),Task Type\nA,1,AI_CORE\n");
  Store ok;
  ok.ingest({r});
  CHECK(ok.integer("SELECT count(*) FROM op_tasks") == 1);
}

TEST_CASE("short rows and bad numbers: strict names the line, lenient counts per reason") {
  TempDir dir;
  auto p = dir.write("kernel_details.csv",
                     "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
                     "A,Add,AI_CORE,1,2\n"
                     "B,Add,AI_CORE,1\n"
                     "C,Add,AI_CORE,1,abc\n"
                     "D,Add,AI_CORE,1,\"3\n");
  Store strict;
  CHECK_THROWS_WITH(strict.ingest({p}), Catch::Contains("kernel_details.csv:line 3") &&
                                            Catch::Contains("4 fields, header has 5"));
  CHECK(strict.integer("SELECT count(*) FROM op_tasks") == 0);  // rolled back

  Store lenient;
  lenient.ingest({p}, Mode::lenient);
  CHECK(lenient.integer("SELECT count(*) FROM op_tasks") == 1);
  const auto& f = lenient.result.files.at(0);
  CHECK(f.skipped == 3);
  std::string all;
  for (const auto& w : f.warnings) all += w + "\n";
  CHECK_THAT(all, Catch::Contains("bad number in column Duration(us) (first at line 4)"));
  CHECK_THAT(all, Catch::Contains("unterminated quoted field"));
}

TEST_CASE("empty and binary files are errors, never op tables") {
  TempDir dir;
  auto empty = dir.write("kernel_details.csv", "");
  std::string junk;
  for (int i = 0; i < 4096; ++i) junk += static_cast<char>((i * 7919) % 256);
  auto binary = dir.write("bin/op_summary_0.csv", junk);
  Store s;
  CHECK_THROWS_WITH(s.ingest({empty}), Catch::Contains("kernel_details.csv:line 1: empty file"));
  CHECK_THROWS_WITH(s.ingest({binary}), Catch::Contains("unrecognised format"));
  // Found by walking a directory, unrecognised files are reported and ignored.
  Store walk;
  walk.ingest({dir.path() / "bin"});
  REQUIRE(walk.result.files.size() == 1);
  CHECK(walk.result.files[0].collector == "unrecognised");
}

TEST_CASE("op_summary next to kernel_details of the same rank is not counted twice") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  std::string minimal;
  {
    std::ifstream in(ascend_sample("mstt/kernel_details_minimal_names.csv"), std::ios::binary);
    minimal.assign(std::istreambuf_iterator<char>(in), {});
  }
  auto rank_dir = dir.path() / "cluster" / "w1_123_ascend_pt";
  dir.write("cluster/w0_123_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", minimal);
  dir.write("cluster/w1_123_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv", minimal);
  std::string op_summary = minimal;
  op_summary.replace(0, op_summary.find('\n'),
                     "Op Name,OP Type,Task Type,Task Start Time(us),Task Duration(us),"
                     "Task Wait Time(us),Block Dim");
  dir.write(
      "cluster/w1_123_ascend_pt/PROF_000001_20240101000000000_x/mindstudio_profiler_output/"
      "op_summary_20240101000000.csv",
      op_summary);
  Store s;
  s.ingest({dir.path() / "cluster"});
  CHECK(s.integer("SELECT count(*) FROM op_tasks") == 16);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE rank=0") == 8);
  CHECK(s.integer("SELECT count(*) FROM op_tasks WHERE rank=1") == 8);
  bool warned = false;
  for (const auto& f : s.result.files) {
    for (const auto& w : f.warnings)
      warned = warned || w.find("kernel_details is preferred") != std::string::npos;
  }
  CHECK(warned);
}

// The action kinds on their own: fusion switch files (both forms) and AOE plans from the real
// Ascend samples, environment files, code hints, the atomic file writer and the writer of files
// a user names.
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <fstream>

#include "../actions/ingest_support.h"
#include "actions/aoe.h"
#include "actions/code_hint.h"
#include "actions/env_file.h"
#include "actions/files.h"
#include "actions/fusion_switch.h"
#include "test_support.h"

using namespace perfsage;
using namespace perfsage::actions;
using perfsage::test::TempDir;

namespace {

int64_t ingest(store::Database& db, const std::vector<std::filesystem::path>& inputs) {
  return test::ingest_for_actions(db, inputs);
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

}  // namespace

TEST_CASE("fusion switch files: both forms parse, merge and render") {
  auto json = parse_fusion_switch(R"({
	"Switch": {
		"GraphFusion": {"ALL": "off", "SoftmaxFusionPass": "on"},
		"UBFusion": {"TbeEltwiseFusionPass": "OFF"}
	}
})",
                                  "user.cfg");
  CHECK(json.graph.at("ALL") == false);
  CHECK(json.graph.at("SoftmaxFusionPass") == true);
  CHECK(json.ub.at("TbeEltwiseFusionPass") == false);

  auto lines = parse_fusion_switch(
      "# mine\nRequantFusionPass:off\n\n TbePool2dQuantFusionPass : on\n", "user.txt");
  CHECK(lines.unclassified.at("RequantFusionPass") == false);
  CHECK(lines.unclassified.at("TbePool2dQuantFusionPass") == true);

  // A request over the user's file: classes from the run, the rest only in the line form.
  std::map<std::string, FusionClass> classes = {{"ConvConcatFusionPass", FusionClass::graph}};
  auto plan = plan_fusion_switch({{{"ConvConcatFusionPass", "MysteryPass"}, {}, "", "f1"},
                                  {{}, {"ConvConcatFusionPass"}, "", "f2"},
                                  {{"RequantFusionPass"}, {}, "UBFusion", "f3"}},
                                 classes, json);
  CHECK(plan.switches.graph.at("ConvConcatFusionPass") == false);  // f1 first, f2 conflicts
  CHECK(plan.switches.graph.at("ALL") == false);                   // the user's file is kept
  CHECK(plan.switches.ub.at("RequantFusionPass") == false);
  CHECK(plan.switches.unclassified.at("MysteryPass") == false);
  CHECK(plan.findings == std::vector<std::string>{"f1", "f3"});
  std::string notes;
  for (const auto& n : plan.notes) notes += n + "\n";
  CHECK_THAT(notes, Catch::Contains("f2") && Catch::Contains("the opposite"));
  CHECK_THAT(notes, Catch::Contains("MysteryPass is not known"));
  CHECK_THAT(notes, Catch::Contains("group == num_output"));

  // Rendered files read back to the same settings.
  auto text = render_fusion_switch_json(plan.switches);
  auto back = parse_fusion_switch(text, "out.cfg");
  CHECK(back.graph == plan.switches.graph);
  CHECK(back.ub == plan.switches.ub);
  CHECK(text.find("\"ALL\": \"off\"") < text.find("\"ConvConcatFusionPass\""));
  auto line_form = render_fusion_switch_lines(plan.switches);
  CHECK_THAT(line_form, Catch::Contains("MysteryPass:off\n") &&
                            Catch::Contains("ConvConcatFusionPass:off\n") &&
                            !Catch::Contains("ALL"));
  CHECK(parse_fusion_switch(line_form, "out.txt").unclassified.size() == 5);
}

TEST_CASE("fusion switch files: bad input names the file and line") {
  CHECK_THROWS_WITH(parse_fusion_switch("A:off\nB:maybe\n", "f.cfg"),
                    Catch::Contains("f.cfg:2") && Catch::Contains("<PassName>:on"));
  CHECK_THROWS_WITH(parse_fusion_switch("{\"Switch\": {\"GraphFusion\": {\"A\": 1}}}", "f.cfg"),
                    Catch::Contains("f.cfg:1:") && Catch::Contains("\"on\" or \"off\""));
  CHECK_THROWS_WITH(parse_fusion_switch("{\"Switch\": {\"Graph\": {}}}", "f.cfg"),
                    Catch::Contains("unknown class \"Graph\""));
  CHECK_THROWS_WITH(parse_fusion_switch("{\"Switch\": [", "f.cfg"), Catch::Contains("f.cfg:1:"));
}

TEST_CASE("fusion_switch on the GE dump and fusion_result samples") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  store::Database db((dir.path() / "s.db").string());
  auto oam = test::samples_dir() / "ascend/oam-tools";
  int64_t run = ingest(db, {oam / "fusion_result.json", oam / "ge_proto_00000001_Build.txt"});
  auto classes = fusion_pass_classes(db, run);
  CHECK(classes.at("ConstToAttrGatherV2Fusion") == FusionClass::graph);
  CHECK(classes.at("RefreshInt64ToInt32FusionPass") == FusionClass::graph);
  // The dump's graphs name no fusion switch file (ge.fusionSwitchFile is empty).
  CHECK_FALSE(compiled_fusion_switch_file(db, run));
  auto plan = plan_fusion_switch({{{"ConstToAttrGatherV2Fusion"}, {}, "", "f"}}, classes, {});
  CHECK(plan.notes.empty());
  CHECK(render_fusion_switch_json(plan.switches) ==
        "{\n  \"Switch\": {\n    \"GraphFusion\": {\n      \"ConstToAttrGatherV2Fusion\": "
        "\"off\"\n    },\n    \"UBFusion\": {}\n  }\n}\n");
  CHECK(render_fusion_switch_lines(plan.switches) == "ConstToAttrGatherV2Fusion:off\n");
}

TEST_CASE("aoe on the kernel_details sample: tunable ops ranked by gain, AI CPU left out") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  store::Database db((dir.path() / "s.db").string());
  int64_t run = ingest(db, {test::samples_dir() / "ascend/mstt/kernel_details_arith_util.csv"});
  // A type (BatchMatMul: every op of it), a name, an AI CPU op and an unknown one.
  auto plan = plan_aoe(db, run,
                       {{{"BatchMatMul"}, 2, 300.0, "long cube ops", "f1"},
                        {{"trans_Cast_5; ReduceSum135", "NoSuchOp"}, 0, 50.0, "block dim", "f2"}});
  REQUIRE_FALSE(plan.ops.empty());
  CHECK(plan.subgraph);
  CHECK(plan.operators);
  for (size_t i = 1; i < plan.ops.size(); ++i)
    CHECK(plan.ops[i - 1].gain_us >= plan.ops[i].gain_us);
  // A finding's gain goes to its ops by their time, and never more than an op's own time.
  double matmul_time = 0;
  for (const auto& op : plan.ops) {
    if (op.type == "BatchMatMul") matmul_time += op.total_us;
  }
  bool reduce_sum = false;
  for (const auto& op : plan.ops) {
    CHECK(op.core_type != "AI_CPU");
    CHECK(op.gain_us <= op.total_us + 1e-9);
    if (op.name == "ReduceSum135") {
      reduce_sum = true;  // the only tunable op of f2
      CHECK(op.gain_us == Approx(std::min(50.0, op.total_us)));
    } else {
      CHECK(op.type == "BatchMatMul");
      CHECK(op.gain_us == Approx(std::min(300.0 * op.total_us / matmul_time, op.total_us)));
    }
  }
  CHECK(reduce_sum);
  std::string notes;
  for (const auto& n : plan.notes) notes += n + "\n";
  CHECK_THAT(notes, Catch::Contains("trans_Cast_5 runs on AI_CPU") &&
                        Catch::Contains("NoSuchOp: no operator"));
  auto file = render_tune_ops_file(plan);
  CHECK_THAT(file,
             Catch::StartsWith("{\"tune_ops_name\": [\"") && Catch::Contains("\"ReduceSum135\""));

  auto target = aoe_target(db, run);
  CHECK(target.framework == "pytorch-npu");
  CHECK_FALSE(target.model);
  auto cmds = aoe_commands(plan, target, "/out/aoe_tune_ops.cfg");
  REQUIRE(cmds.size() == 3);
  CHECK_THAT(cmds[0], Catch::StartsWith("export AOE_MODE=1"));
  CHECK_THAT(cmds[2], Catch::StartsWith("aoe --job_type=2 --model_path=") &&
                          Catch::Contains("--tune_ops_file=/out/aoe_tune_ops.cfg"));
  // An offline ONNX model gets the model-file form, subgraph tuning first.
  auto offline = aoe_commands(plan, {"onnx", "/m/model.onnx"}, "x");
  CHECK(offline ==
        std::vector<std::string>{"aoe --framework=5 --model=/m/model.onnx --job_type=1",
                                 "aoe --framework=5 --model=/m/model.onnx --job_type=2"});
}

TEST_CASE("env files: merged, quoted, one finding comment per line") {
  auto plan =
      plan_env_file({{{"TASK_QUEUE_ENABLE=2", "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"},
                      {},
                      "a1",
                      "Host-bound\nstep"},
                     {{"TASK_QUEUE_ENABLE=1", "BAD NAME=1", "NOEQUALS", "HCCL_BUFFSIZE=it's"},
                      {"ASCEND_LAUNCH_BLOCKING"},
                      "b2",
                      "Blocking launches"}});
  auto text = render_env_file(plan);
  CHECK_THAT(text, Catch::Contains("export TASK_QUEUE_ENABLE=2  # finding a1: Host-bound step\n"));
  CHECK_THAT(text, Catch::Contains(
                       "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True  # finding a1"));
  CHECK_THAT(text, Catch::Contains("export HCCL_BUFFSIZE='it'\\''s'  # finding b2"));
  CHECK_THAT(text,
             Catch::Contains("unset ASCEND_LAUNCH_BLOCKING  # finding b2: Blocking launches"));
  CHECK(text.find("TASK_QUEUE_ENABLE=1") == std::string::npos);
  CHECK(plan.notes.size() == 3);
  CHECK(plan.findings == std::vector<std::string>{"a1", "b2"});
  // Every non-comment line is a command with its finding.
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (line[0] != '#') CHECK_THAT(line, Catch::Contains("  # finding "));
  }
}

TEST_CASE("code hints: unified diffs shown as they are, words as comments") {
  CHECK(unified_diff_problem("--- a/t.py\n+++ b/t.py\n@@ -1 +1 @@\n-x\n+y\n").empty());
  CHECK_THAT(unified_diff_problem("+++ b\n--- a\n@@\n"), Catch::Contains("line 1"));
  std::string diff =
      "--- a/train.py\n+++ b/train.py\n@@ -10 +10 @@\n-loader = DataLoader(ds)\n"
      "+loader = DataLoader(ds, pin_memory=True)\n";
  auto text = render_code_hints({{"use pinned memory", diff, "train.py", "c1", "Pageable copies"},
                                 {"call set_compile_mode(jit_compile=False)", "", "", "c2", "t"}});
  CHECK_THAT(text, Catch::Contains("# finding c1: Pageable copies\n# in train.py\n" + diff));
  CHECK_THAT(text,
             Catch::Contains("# finding c2: t\n#   call set_compile_mode(jit_compile=False)\n"));
}

TEST_CASE("atomic files: written whole, hashed, linked, removed") {
  TempDir dir;
  auto target = dir.path() / "sub" / "fusion_switch.cfg";
  write_file_atomic(target, "abc");
  CHECK(read(target) == "abc");
  CHECK(sha256_file(target) ==
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");  // FIPS 180-2 "abc"
  write_file_atomic(target, "second");
  CHECK(read(target) == "second");
  // No temporary files are left behind.
  int entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(target.parent_path())) {
    ++entries;
  }
  CHECK(entries == 1);
  auto linked = dir.path() / "out" / "weights.bin";
  link_file_atomic(target, linked);
  CHECK(read(linked) == "second");
  CHECK(remove_file_synced(linked));
  CHECK_FALSE(remove_file_synced(linked));
  CHECK(read(target) == "second");
  CHECK_THROWS_WITH(write_file_atomic("/proc/perfsage-no/x", "a"), Catch::Contains("/proc"));
}

TEST_CASE("files a user names: devices and FIFOs written through, links followed, never replaced") {
  TempDir dir;
  struct stat st;
  // A FIFO: its reader gets the bytes and it stays a FIFO (a rename would make it a file).
  auto fifo = dir.path() / "pipe";
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  int rfd = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  REQUIRE(rfd >= 0);
  write_user_file(fifo, "report\n");
  char buf[64] = {};
  CHECK(::read(rfd, buf, sizeof buf) == 7);
  ::close(rfd);
  CHECK(std::string(buf) == "report\n");
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));
  // Actions' own atomic writes never rename over one either.
  CHECK_THROWS_WITH(write_file_atomic(fifo, "x"), Catch::Contains("is not a regular file"));
  CHECK_THROWS_WITH(link_file_atomic(fifo, dir.path() / "pipe"),
                    Catch::Contains("is not a regular file"));
  REQUIRE(::lstat(fifo.c_str(), &st) == 0);
  CHECK(S_ISFIFO(st.st_mode));

  // A character device (a copy of /dev/null where mknod is allowed, i.e. as root).
  auto null_copy = dir.path() / "null";
  if (::mknod(null_copy.c_str(), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
      ::access(null_copy.c_str(), W_OK) == 0) {
    write_user_file(null_copy, "gone");
    REQUIRE(::lstat(null_copy.c_str(), &st) == 0);
    CHECK(S_ISCHR(st.st_mode));
  } else {
    WARN("mknod or writing a device is not permitted here: the device case is not checked");
  }

  // A link to a regular file: the link stays, the file it names is replaced atomically.
  auto real = dir.path() / "real" / "report.txt";
  write_file_atomic(real, "old");
  auto link = dir.path() / "link.txt";
  std::filesystem::create_symlink("real/report.txt", link);
  write_user_file(link, "new");
  CHECK(std::filesystem::is_symlink(link));
  CHECK(read(real) == "new");
  // A dangling link creates the file it names; a regular file is replaced as before.
  auto dangling = dir.path() / "dangling.txt";
  std::filesystem::create_symlink("real/later.txt", dangling);
  write_user_file(dangling, "later");
  CHECK(std::filesystem::is_symlink(dangling));
  CHECK(read(dir.path() / "real" / "later.txt") == "later");
  write_user_file(real, "plain");
  CHECK(read(real) == "plain");
  // A folder is an error, whichever writer.
  CHECK_THROWS_WITH(write_user_file(dir.path() / "real", "x"), Catch::Contains("is a folder"));
}

// perfsage analyze with a temporary store compiles the packs while the inputs are stored and
// analysed (app::KnowledgeInFlight); with --store it loads them first. Either way a run says
// and returns the same: a failed load is the outcome (its text and exit code) before a missing
// input or anything the analysis did, the packs' warnings come first, the report is the same.
#include "app/knowledge_in_flight.h"

#include "cli_support.h"

using namespace perfsage::test;
using namespace perfsage::cli;
namespace fs = std::filesystem;

namespace {

std::string example() {
  return (source_dir() / "examples" / "resnet50_rank0_ascend_pt").string();
}

// The command with a temporary store (packs compiled beside the analysis) and with a fresh
// --store (packs loaded first): both results, and whether the store file was left.
struct Both {
  CommandResult in_flight, loaded_first;
  bool store_left = false;
};

Both run_both(const TempDir& dir, std::vector<std::string> args) {
  Both b;
  b.in_flight = run_command("analyze", args);
  const fs::path store = dir.path() / "fresh.db";
  fs::remove(store);
  args.push_back("--store");
  args.push_back(store.string());
  b.loaded_first = run_command("analyze", args);
  b.store_left = fs::exists(store);
  fs::remove(store);
  return b;
}

}  // namespace

TEST_CASE("a failed knowledge load is the outcome of a run whose packs compile beside it") {
  TempDir dir;
  // A hardware spec that does not read, in a configured kb path.
  dir.write("kb/hardware/broken.yaml", "chips: [1\n");
  const auto bad_hardware =
      dir.write("hw.yaml", "kb:\n  paths: [" + (dir.path() / "kb").string() + "]\n");
  // A param override the compiler refuses: an error the packs' compilation finds, in the config.
  const auto bad_param = dir.write("param.yaml", "kb:\n  params: {aicpu: {min_task_us: abc}}\n");
  const std::vector<std::vector<std::string>> failing = {
      {"--kb", "no_such_pack"},
      {"--config", bad_param.string()},
      {"--config", bad_hardware.string()},
      {"--config", bad_hardware.string(), "--kb", "no_such_pack"},  // the packs' error first
  };
  for (const auto& extra : failing)
    for (const std::string& input : {example(), (dir.path() / "no_such_input").string()}) {
      std::vector<std::string> args = {input};
      args.insert(args.end(), extra.begin(), extra.end());
      INFO(args[0] << " " << extra[0] << " " << extra[1]);
      auto b = run_both(dir, args);
      CHECK(b.in_flight.code == kExitUsage);
      CHECK(b.in_flight.code == b.loaded_first.code);
      CHECK(b.in_flight.err == b.loaded_first.err);
      CHECK(b.in_flight.out.empty());
      CHECK_FALSE(b.store_left);  // loaded first: the store is never created
      CHECK_THAT(b.in_flight.err, !Catch::Contains("no_such_input"));
    }
  auto b = run_both(dir, {example(), "--kb", "no_such_pack"});
  CHECK(b.in_flight.err ==
        "perfsage: selection: error LOAD_ERR_VALIDATE: [no_such_pack kb.packs] no pack matches "
        "'no_such_pack' in the search paths\n");
  b = run_both(dir, {example(), "--config", bad_param.string()});
  CHECK_THAT(b.in_flight.err, Catch::Contains("the override 'abc' is a string"));
}

TEST_CASE("packs compiled beside the analysis: the same warnings first, the same report") {
  TempDir dir;
  // A pack that compiles with a warning (an unused param) and one whose rule does not compile.
  dir.write("packs/warned/pack.yaml",
            "name: warned\nversion: 1.0.0\nuses: [op]\nparams:\n  unused: 1\nrules:\n"
            "  - id: r\n    when: (op (name ?n))\n    message: op {?n}\n");
  dir.write("packs/broken/pack.yaml",
            "name: broken\nversion: 1.0.0\nuses: [op]\nrules:\n"
            "  - id: r\n    when: (op (name ?n)) (no-such-fact)\n    message: m\n");
  for (const char* format : {"text", "json"}) {
    auto b = run_both(dir, {example(), "--kb", (dir.path() / "packs" / "warned").string(), "--kb",
                            (dir.path() / "packs" / "broken").string(), "--format", format});
    INFO(b.in_flight.err);
    CHECK(b.in_flight.code == b.loaded_first.code);
    CHECK(b.in_flight.err == b.loaded_first.err);
    CHECK(b.in_flight.out == b.loaded_first.out);
    CHECK_THAT(b.in_flight.err, Catch::Contains("param is never used"));
    CHECK_THAT(b.in_flight.err, Catch::Contains("unknown fact type 'no-such-fact'"));
  }
  // The built-in packs on the example: the report both ways, byte for byte.
  for (const char* format : {"text", "json"}) {
    auto b = run_both(dir, {example(), "--format", format});
    CHECK(b.in_flight.code == 0);
    CHECK(b.in_flight.err == b.loaded_first.err);
    CHECK(b.in_flight.out == b.loaded_first.out);
  }
}

TEST_CASE("KnowledgeInFlight gives what load_knowledge gives") {
  auto resources =
      perfsage::app::locate_resources(perfsage::app::ResourceHints::from_environment());
  perfsage::app::AppConfig config;
  std::vector<std::string> said;
  perfsage::app::KnowledgeInFlight in_flight(config, resources, {},
                                             [&](const perfsage::app::Knowledge& kn) {
                                               for (const auto& m : kn.messages)
                                                 said.push_back(m.str());
                                             });
  REQUIRE(in_flight.analyzer_knowledge());
  const auto& got = in_flight.wait();
  CHECK(in_flight.loaded());
  auto want = perfsage::app::load_knowledge(config, resources);
  REQUIRE(got);
  REQUIRE(want);
  REQUIRE((*got)->packs.packs.size() == (*want)->packs.packs.size());
  for (size_t i = 0; i < (*got)->packs.packs.size(); ++i) {
    CHECK((*got)->packs.packs[i].pack.name == (*want)->packs.packs[i].pack.name);
    CHECK((*got)->packs.packs[i].valid == (*want)->packs.packs[i].valid);
    CHECK((*got)->packs.packs[i].constructs == (*want)->packs.packs[i].constructs);
  }
  std::vector<std::string> expected;
  for (const auto& m : (*want)->messages) expected.push_back(m.str());
  CHECK(said == expected);
  CHECK((*got)->patterns.size() == (*want)->patterns.size());
  CHECK((*got)->pack_paths == (*want)->pack_paths);

  perfsage::app::KnowledgeInFlight failing(config, resources, {{"no_such_pack"}});
  const auto& failed = failing.wait();
  REQUIRE_FALSE(failed);
  CHECK(failed.error().kind == perfsage::app::ErrorKind::usage);
  CHECK(failed.error().message ==
        perfsage::app::load_knowledge(config, resources, {{"no_such_pack"}}).error().message);
}

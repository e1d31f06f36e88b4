// What a pack author and a CI job do: write a pack from scratch (kb new -> edit -> kb test ->
// kb install -> analyze), select packs by config (globs, tags, params, a maturity floor), gate
// on findings and failures, and get the same report twice.
#include <sys/stat.h>

#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "cli/dispatch.h"
#include "cli_support.h"
#include "engine/kb/reader.h"

using namespace perfsage::test;
using namespace perfsage::cli;

namespace {

std::string example() {
  return (source_dir() / "examples" / "resnet50_rank0_ascend_pt").string();
}

std::string read(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Points the user pack folder at a temporary folder for one test.
class UserPackFolder {
 public:
  explicit UserPackFolder(const std::filesystem::path& dir) {
    if (const char* old = std::getenv("XDG_DATA_HOME")) old_ = old, had_ = true;
    setenv("XDG_DATA_HOME", dir.c_str(), 1);
  }
  ~UserPackFolder() { had_ ? setenv("XDG_DATA_HOME", old_.c_str(), 1) : unsetenv("XDG_DATA_HOME"); }

 private:
  std::string old_;
  bool had_ = false;
};

// GitHub's anchor for a Markdown heading: lower case, spaces to '-', punctuation dropped.
std::string heading_anchor(const std::string& heading) {
  std::string out;
  for (char c : heading.substr(heading.find_first_not_of('#'))) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    else if (c == ' ')
      out += '-';
  }
  return out.substr(out.find_first_not_of('-'));
}

// Why `ref` is not a real source: a web page (https) or a perfsage doc under docs/ whose
// #anchor, when given, is one of its headings. Empty when it is one.
std::string reference_problem(const std::string& ref) {
  if (ref.rfind("https://", 0) == 0)
    return ref.find("example.") == std::string::npos ? "" : "a placeholder";
  if (ref.rfind("docs/", 0) != 0) return "neither an https URL nor a docs/ page";
  const auto hash = ref.find('#');
  const auto page = source_dir() / ref.substr(0, hash);
  std::ifstream in(page);
  if (!in) return "no such page";
  if (hash == std::string::npos) return "";
  for (std::string line; std::getline(in, line);)
    if (line.rfind('#', 0) == 0 && heading_anchor(line) == ref.substr(hash + 1)) return "";
  return "no heading for the anchor";
}

CommandResult cli(std::vector<std::string> args) {
  std::ostringstream out, err;
  CommandResult r;
  r.code = run(std::move(args), out, err, "test");
  r.out = out.str();
  r.err = err.str();
  return r;
}

}  // namespace

TEST_CASE("a pack written from scratch: new, edit, test, lint, install, analyze, remove") {
  TempDir dir;
  UserPackFolder home(dir.path() / "data");
  auto r = cli({"kb", "new", "slow_ops", "--dir", dir.path().string()});
  REQUIRE(r.code == 0);
  auto pack_dir = dir.path() / "slow_ops";
  r = cli({"kb", "test", pack_dir.string()});
  INFO(r.out << r.err);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("fires in 1, silent in 1"));
  CHECK(cli({"kb", "lint", pack_dir.string(), "--strict"}).code == 0);

  // The author raises the threshold: the test expecting a 20 % op now fails, and says why.
  std::string pack = read(pack_dir / "pack.yaml");
  auto at = pack.find("default: 0.05");
  REQUIRE(at != std::string::npos);
  pack.replace(at, 13, "default: 0.25");
  dir.write("slow_ops/pack.yaml", pack);
  r = cli({"kb", "test", pack_dir.string()});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("expected heavy_op did not fire"));
  pack.replace(at, 13, "default: 0.10");
  dir.write("slow_ops/pack.yaml", pack);
  REQUIRE(cli({"kb", "test", pack_dir.string()}).code == 0);

  // A syntax slip is reported at its line.
  dir.write("broken/pack.yaml", "name: broken\nversion: 1.0.0\nrules:\n  - id: r\n    when: [\n");
  r = cli({"kb", "validate", (dir.path() / "broken").string(), "--format", "json"});
  CHECK(r.code == kExitPack);
  auto check = parse_json<perfsage::v1::PackCheckList>(r.out);
  REQUIRE(check.packs_size() == 1);
  REQUIRE(check.packs(0).messages_size() >= 1);
  CHECK(check.packs(0).messages(0).code() == "LOAD_ERR_YAML_PARSE");
  CHECK(check.packs(0).messages(0).line() == 5);  // where the never-closed list opens

  r = cli({"kb", "install", pack_dir.string()});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(
      std::filesystem::exists(dir.path() / "data/perfsage/packs/slow_ops/.perfsage-install.json"));
  auto report =
      parse_report(cli({"analyze", example(), "--kb", "slow_ops", "--format", "json"}).out);
  REQUIRE(report.packs_size() == 1);
  CHECK(report.packs(0).source() == "user");
  CHECK(report.packs(0).isolated());
  CHECK(report.packs(0).status() == "ok");
  CHECK_FALSE(findings(report, "slow_ops", "heavy_op").empty());
  r = cli({"kb", "list", "--format", "json"});
  CHECK_THAT(r.out,
             Catch::Contains("\"source\": \"user\"") && Catch::Contains("\"source\": \"builtin\""));
  CHECK(cli({"kb", "remove", "slow_ops"}).code == 0);
  CHECK(cli({"analyze", example(), "--kb", "slow_ops"}).code == kExitUsage);
}

TEST_CASE("a failing or colliding pack is not installed") {
  TempDir dir;
  UserPackFolder home(dir.path() / "data");
  REQUIRE(cli({"kb", "new", "aicpu", "--dir", dir.path().string()}).code == 0);
  auto r = cli({"kb", "install", (dir.path() / "aicpu").string()});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.err, Catch::Contains("override"));  // a built-in pack has that name
  REQUIRE(cli({"kb", "new", "mine", "--dir", dir.path().string()}).code == 0);
  dir.write("mine/tests/mine_test.yaml",
            "cases:\n  - name: wrong\n    facts: {op: [{name: A, total_us: 1}]}\n"
            "    expect: [{rule: heavy_op}]\n");
  r = cli({"kb", "install", (dir.path() / "mine").string()});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.err, Catch::Contains("fails its own tests"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "data/perfsage/packs/mine"));
}

TEST_CASE("kb install replaces only a pack folder, never a file, link or FIFO of that name") {
  TempDir dir;
  UserPackFolder home(dir.path() / "data");
  REQUIRE(cli({"kb", "new", "mine", "--dir", dir.path().string()}).code == 0);
  auto target = dir.path() / "data/perfsage/packs/mine";
  std::filesystem::create_directories(target.parent_path());
  REQUIRE(::mkfifo(target.c_str(), 0600) == 0);
  auto r = cli({"kb", "install", (dir.path() / "mine").string(), "--replace"});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.err, Catch::Contains("exists and is not a folder"));
  CHECK(std::filesystem::is_fifo(std::filesystem::symlink_status(target)));
  std::filesystem::remove(target);
  std::filesystem::create_directory_symlink(dir.path() / "mine", target);
  r = cli({"kb", "install", (dir.path() / "mine").string(), "--replace"});
  CHECK(r.code == kExitPack);
  CHECK(std::filesystem::is_symlink(target));
  CHECK(std::filesystem::exists(dir.path() / "mine/pack.yaml"));
  std::filesystem::remove(target);
  CHECK(cli({"kb", "install", (dir.path() / "mine").string()}).code == 0);
  CHECK(std::filesystem::is_directory(std::filesystem::symlink_status(target)));
}

TEST_CASE("config selection: paths, globs, tags, params and a maturity floor") {
  TempDir dir;
  REQUIRE(cli({"kb", "new", "my_a", "--dir", (dir.path() / "packs").string()}).code == 0);
  REQUIRE(cli({"kb", "new", "my_b", "--dir", (dir.path() / "packs").string()}).code == 0);
  // my_b is stable; the scaffold says sandbox.
  std::string b = read(dir.path() / "packs/my_b/pack.yaml");
  b.replace(b.find("maturity: sandbox"), 17, "maturity: stable");
  dir.write("packs/my_b/pack.yaml", b);
  auto pack_names = [](const perfsage::v1::AnalysisReport& rep) {
    std::set<std::string> out;
    for (const auto& p : rep.packs()) out.insert(p.name());
    return out;
  };
  auto cfg = dir.write("cfg.yaml", "kb:\n  paths: [packs]\n  packs: [\"my_*\"]\n");
  auto rep =
      parse_report(cli({"analyze", example(), "--config", cfg.string(), "--format", "json"}).out);
  CHECK(pack_names(rep) == std::set<std::string>{"my_a", "my_b"});
  cfg = dir.write("cfg.yaml",
                  "kb:\n  paths: [packs]\n  packs: [\"my_*\"]\n  min_maturity: incubating\n");
  rep = parse_report(cli({"analyze", example(), "--config", cfg.string(), "--format", "json"}).out);
  CHECK(pack_names(rep) == std::set<std::string>{"my_b"});
  // --kb replaces kb.packs; a tag disables rules everywhere; params reach the pack.
  cfg =
      dir.write("cfg.yaml",
                "kb:\n  paths: [packs]\n  packs: [\"my_*\"]\n  params: {my_a: {min_share: 0.9}}\n");
  rep = parse_report(
      cli({"analyze", example(), "--config", cfg.string(), "--kb", "my_a", "--format", "json"})
          .out);
  CHECK(pack_names(rep) == std::set<std::string>{"my_a"});
  CHECK(findings(rep, "my_a").empty());  // nothing takes 90 % of a step
  cfg = dir.write("cfg.yaml",
                  "kb:\n  paths: [packs]\n  packs: [my_a, aicpu]\n  disable: [\"tag:example\"]\n");
  rep = parse_report(cli({"analyze", example(), "--config", cfg.string(), "--format", "json"}).out);
  CHECK(pack_names(rep) == std::set<std::string>{"aicpu"});  // my_a has no enabled rule left
}

TEST_CASE("--fail-on gates on findings, failed packs and unrecognised input") {
  auto r = cli({"analyze", example(), "--fail-on", "HIGH"});
  CHECK(r.code == kExitFailOn);
  CHECK_THAT(r.err, Catch::Contains("--fail-on high: high finding"));
  CHECK(cli({"analyze", example(), "--fail-on", "critical"}).code == kExitOk);
  r = cli({"analyze", example(), "--fail-on", "urgent"});
  CHECK(r.code == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("critical, high, medium, low, info"));

  TempDir dir;
  dir.write("packs/broken/pack.yaml",
            "name: broken\nversion: 1.0.0\nuses: [op]\nrules:\n  - id: r\n"
            "    when: (op (name ?n) (total_us ?t))\n    message: m\n    gain: (/ ?t 0)\n");
  auto cfg = dir.write("cfg.yaml", "kb:\n  paths: [packs]\n");
  r = cli(
      {"analyze", example(), "--config", cfg.string(), "--kb", "broken", "--fail-on", "critical"});
  CHECK(r.code == kExitGate);
  CHECK_THAT(r.err, Catch::Contains("pack broken error"));
  // The CLIPS error is one line naming the pack file, the rule, the key and its line.
  CHECK_THAT(r.err,
             Catch::Contains((dir.path() / "packs/broken/pack.yaml").string() +
                             ":8:11: rule r, gain: divide by zero in (/ ...) [PRNTUTIL7]\n"));
  CHECK_THAT(r.err, !Catch::Contains("PRCCODE4"));

  // A pack whose YAML does not even parse fails the gate like one that does not compile.
  dir.write("syntax/unclosed/pack.yaml", "name: unclosed\nversion: 1.0.0\nrules: [a: b: c\n");
  auto syntax_cfg = dir.write("syntax.yaml", "kb:\n  paths: [syntax]\n");
  r = cli({"analyze", example(), "--config", syntax_cfg.string(), "--fail-on", "critical"});
  INFO(r.err);
  CHECK(r.code == kExitGate);
  std::string unclosed = "--fail-on: pack unclosed error: ";
  unclosed += (dir.path() / "syntax/unclosed/pack.yaml").string() + ":3";
  CHECK_THAT(r.err, Catch::Contains(unclosed));
  auto report = parse_report(
      cli({"analyze", example(), "--config", syntax_cfg.string(), "--format", "json"}).out);
  bool listed = false;
  for (const auto& p : report.packs()) listed |= p.name() == "unclosed" && p.status() == "error";
  CHECK(listed);

  // Nothing recognised is no clean run: said on stderr and in the report, exit 1 unless
  // --lenient (which the gate then trips).
  dir.write("empty/notes.txt", "nothing a profiler wrote\n");
  auto empty = (dir.path() / "empty").string();
  r = cli({"analyze", empty});
  CHECK(r.code == kExitInput);
  CHECK_THAT(r.err, Catch::Contains("perfsage: nothing recognised: 1 file in no format"));
  CHECK_THAT(r.out,
             Catch::Contains("nothing in the inputs was recognised, so this is no clean run"));
  CHECK_THAT(r.out, !Catch::Contains("no rule found a problem"));
  CHECK(cli({"analyze", empty, "--fail-on", "critical"}).code == kExitInput);
  r = cli({"analyze", empty, "--lenient", "--fail-on", "critical"});
  CHECK(r.code == kExitGate);
  CHECK_THAT(r.err, Catch::Contains("no input was recognised"));
  r = cli({"analyze", empty, "--lenient"});
  CHECK(r.code == kExitOk);
  CHECK_THAT(r.err, Catch::Contains("nothing recognised"));
  auto store = (dir.path() / "s.db").string();
  r = cli({"ingest", empty, "--store", store});
  CHECK(r.code == kExitInput);
  CHECK_THAT(r.err, Catch::Contains("nothing recognised"));
  CHECK(cli({"ingest", empty, "--store", store, "--lenient"}).code == kExitOk);
  dir.write("void/.keep", "");
  std::filesystem::remove(dir.path() / "void/.keep");
  r = cli({"analyze", (dir.path() / "void").string()});
  CHECK(r.code == kExitInput);
  CHECK_THAT(r.err, Catch::Contains("nothing recognised: the inputs hold no file"));
}

TEST_CASE("the same inputs give byte-identical reports, to stdout or -o") {
  TempDir dir;
  auto a = cli({"analyze", example(), "--format", "json"});
  auto b = cli({"analyze", example(), "--format", "json"});
  REQUIRE(a.code == 0);
  CHECK(a.out == b.out);
  auto t1 = cli({"analyze", example()});
  auto store = (dir.path() / "s.db").string();
  CHECK(cli({"analyze", example(), "--store", store}).out == t1.out);
  auto again = cli({"analyze", example(), "--store", store, "-o", (dir.path() / "r.txt").string()});
  CHECK(again.out.empty());
  CHECK(read(dir.path() / "r.txt") == t1.out);  // the stored run reads back the same
  CHECK(t1.out.find("e+0") == std::string::npos);
  CHECK_THAT(t1.out, Catch::Contains("gains and shares are per step"));
  // Ids are in the text and the JSON.
  auto rep = parse_report(a.out);
  REQUIRE(rep.recommendations_size() > 0);
  CHECK_THAT(t1.out, Catch::Contains("id " + rep.recommendations(0).id()));
}

TEST_CASE("help, version and kb --help follow the usual conventions") {
  auto r = cli({"help", "analyze"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("--fail-on") && Catch::Contains("Exit codes"));
  CHECK(cli({"analyze", "--help"}).out == r.out);
  r = cli({"kb", "--help"});
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("install") && Catch::Contains("lint"));
  CHECK(cli({"kb", "test", "--help"}).code == 0);
  CHECK(cli({"kb", "facts", "--format", "json"}).code == 0);
  CHECK_THAT(cli({"kb", "facts", "--format", "json"}).out, Catch::Contains("\"base_us\""));
  CHECK(cli({"--version"}).out == "perfsage test\n");
  CHECK(cli({}).code == kExitUsage);
  CHECK(cli({"frobnicate"}).code == kExitUsage);
}

TEST_CASE("the report states its base: per step, per run, or structural for a graph alone") {
  auto step = parse_report(cli({"analyze", example(), "--format", "json"}).out);
  CHECK(step.base().kind() == "step");
  CHECK(step.base().steps() == 3);
  CHECK(step.base().us() > 0);
  PERFSAGE_REQUIRE_SAMPLES();
  auto graph = parse_report(
      cli({"analyze", (samples_dir() / "ascend/oam-tools/ge_proto_00000001_Build.txt").string(),
           "--format", "json"})
          .out);
  CHECK(graph.base().kind() == "none");
  CHECK_THAT(graph.base().text(), Catch::Contains("structural"));
}

TEST_CASE("every shipped pack passes its own kb lint --strict, citing real sources") {
  for (const char* kind : {"builtin", "community"}) {
    for (const auto& e :
         std::filesystem::directory_iterator(source_dir() / "knowledge_bases" / kind)) {
      if (!std::filesystem::exists(e.path() / "pack.yaml")) continue;
      auto r = cli({"kb", "lint", e.path().string(), "--strict"});
      INFO(r.out << r.err);
      CHECK(r.code == 0);
      std::vector<perfsage::engine::LoadMessage> msgs;
      auto pack = perfsage::engine::read_pack(e.path(), msgs);
      REQUIRE(pack);
      for (const auto& rule : pack->rules)
        for (const auto& ref : rule.references) {
          INFO(pack->name << " rule " << rule.id << ": " << ref);
          CHECK(reference_problem(ref) == "");
        }
    }
  }
  CHECK(reference_problem("docs/packs/roofline.md#no_flop_model") == "");
  CHECK(reference_problem("docs/gpu-definitions.md#wait-and-transfer-across-ranks") == "");
  CHECK(reference_problem("docs/packs/roofline.md#no_such_rule") == "no heading for the anchor");
  CHECK(reference_problem("https://example.org/where-the-threshold-comes-from") == "a placeholder");
  CHECK(reference_problem("knowledge.md section 3") != "");
}

TEST_CASE("a rule with no action by nature says why in no_action, and lint accepts it") {
  TempDir dir;
  REQUIRE(cli({"kb", "new", "notes", "--dir", dir.path().string()}).code == 0);
  const auto file = dir.path() / "notes" / "pack.yaml";
  const std::string scaffold = read(file);
  const std::string action =
      "    action:\n      kind: code_hint\n      hint: \"describe the change for {?name} "
      "({?type})\"\n";
  const std::string placeholder = "https://example.org/where-the-threshold-comes-from";
  auto with = [&](const std::string& block) {
    std::string text = scaffold;
    const auto at = text.find(action);
    REQUIRE(at != std::string::npos);
    text.replace(at, action.size(), block);
    text.replace(text.find(placeholder), placeholder.size(), "https://gitee.com/ascend/mstt");
    std::ofstream(file) << text;
  };
  with("    no_action: \"a coverage note: nothing in the program to change\"\n");
  auto r = cli({"kb", "lint", (dir.path() / "notes").string(), "--strict"});
  INFO(r.out << r.err);
  CHECK(r.code == 0);

  with("");  // neither: the lint asks for a fix or the reason there is none
  r = cli({"kb", "lint", (dir.path() / "notes").string(), "--strict"});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("LINT_NO_ACTION") && Catch::Contains("no_action"));

  with(action + "    no_action: \"both\"\n");
  r = cli({"kb", "validate", (dir.path() / "notes").string()});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("either 'action' or 'no_action'"));

  with("    no_action: \"  \"\n");
  r = cli({"kb", "validate", (dir.path() / "notes").string()});
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("no_action must say why"));
}

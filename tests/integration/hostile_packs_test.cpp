// Hostile packs: community packs are untrusted code. Each case here is something a pack did
// to perfsage (../shared/crashers/packs and the service issue), now contained: the pack gets a
// clear status or load error naming what it did, the other packs' findings are the same as
// without it, and the process lives.
#include <chrono>

#include "cli_support.h"

using namespace perfsage::test;
using namespace perfsage::cli;

namespace {

const char* kHead =
    "name: hostile\nversion: 1.0.0\nengine: \">=0.1\"\nmaturity: sandbox\nuses: [op]\n";

std::string example() {
  return (source_dir() / "examples" / "resnet50_rank0_ascend_pt").string();
}

struct Outcome {
  CommandResult cmd;
  perfsage::v1::AnalysisReport report;
  const perfsage::v1::PackResult* pack(const std::string& name) const {
    for (const auto& p : report.packs())
      if (p.name() == name) return &p;
    return nullptr;
  }
  size_t findings_of(const std::string& pack) const { return findings(report, pack).size(); }
};

// Analyses the example with the hostile pack (in its own folder, so untrusted) and aicpu.
Outcome analyze_with(const TempDir& dir, const std::string& pack_yaml,
                     const std::string& limits = "") {
  dir.write("packs/hostile/pack.yaml", pack_yaml);
  auto cfg = dir.write("cfg.yaml", "kb:\n  paths: [packs]\n" + limits);
  Outcome o;
  o.cmd = run_command("analyze", {example(), "--config", cfg.string(), "--kb", "hostile", "--kb",
                                  "aicpu", "--format", "json"});
  INFO(o.cmd.err);
  REQUIRE(o.cmd.code == 0);
  o.report = parse_report(o.cmd.out);
  return o;
}

size_t baseline_aicpu_findings() {
  static size_t n = [] {
    auto r = analyze_json({example(), "--kb", "aicpu"});
    return findings(r, "aicpu").size();
  }();
  return n;
}

void check_contained(const Outcome& o, const std::string& status, const std::string& why) {
  const auto* p = o.pack("hostile");
  REQUIRE(p);
  INFO(p->status() << ": " << p->error());
  CHECK(p->status() == status);
  CHECK_THAT(p->error(), Catch::Contains(why));
  CHECK(o.pack("aicpu")->status() == "ok");
  CHECK(o.findings_of("aicpu") == baseline_aicpu_findings());
  CHECK(o.findings_of("hostile") == 0);
}

std::string rule(const std::string& when, const std::string& extra = "") {
  return "rules:\n  - id: r1\n    when: |\n      " + when +
         "\n    message: \"{?name}\"\n    subjects: [name]\n" + extra;
}

}  // namespace

TEST_CASE("integer division traps are pack errors, not SIGFPE") {
  TempDir dir;
  auto o =
      analyze_with(dir, std::string(kHead) +
                            rule("(op (name ?name)) (test (> (div -9223372036854775808 -1) 0))"));
  check_contained(o, "error", "Integer overflow in div");
  o = analyze_with(dir,
                   std::string(kHead) + rule("(op (name ?name))", "    gain: (div ?name 0)\n"));
  CHECK(o.pack("hostile")->status() == "error");
  o = analyze_with(
      dir, std::string(kHead) + rule("(op (name ?name) (count ?c)) (test (= (mod ?c 0) 0))"));
  check_contained(o, "error", "divide by zero");
}

TEST_CASE("functions that touch the OS, load code, exit or overflow buffers are refused at load") {
  for (const char* call :
       {"(system \"touch /tmp/perfsage-pwned\")", "(open \"/etc/passwd\" f)", "(load \"x.clp\")",
        "(eval \"(exit)\")", "(exit)", "(format nil \"%100000d\" 1)", "(build \"(defrule x =>)\")",
        "(str-assert \"(op)\")", "(assert (op))", "(bind ?name (str-cat ?name ?name))"}) {
    INFO(call);
    TempDir dir;
    auto o = analyze_with(dir, std::string(kHead) + rule("(op (name ?name)) (test (neq " +
                                                         std::string(call) + " 1))"));
    check_contained(o, "error", "not allowed");
  }
}

TEST_CASE("a cross-product join is stopped by the OS limits within its budget") {
  TempDir dir;
  std::string lists = "lists:\n";
  for (char l : {'a', 'b', 'c', 'd', 'e'}) {
    lists += std::string("  ") + l + ": [";
    for (int i = 0; i < 200; ++i) {
      if (i) lists += ",";
      lists += std::to_string(i);
    }
    lists += "]\n";
  }
  std::string when =
      "(op (name ?name)) (list-item (list a) (value ?a)) (list-item (list b) (value ?b))\n"
      "      (list-item (list c) (value ?c)) (list-item (list d) (value ?d))\n"
      "      (list-item (list e) (value ?e)) (test (< ?a -1))";
  auto start = std::chrono::steady_clock::now();
  auto o = analyze_with(dir, std::string(kHead) + lists + rule(when),
                        "limits:\n  pack_time: 2s\n  pack_memory: 256MiB\n");
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  check_contained(o, "budget_exceeded", "");
  CHECK(o.pack("hostile")->isolated());
  CHECK(s < 30);  // the 2 s budget plus the grace period and the rest of the analysis
}

TEST_CASE("packs too big or too deep to load are refused quickly") {
  TempDir dir;
  std::string deep = "(op (name ?name)) (test (> ";
  for (int i = 0; i < 40000; ++i) deep += "(+ 1 ";
  deep += "1";
  for (int i = 0; i < 40000; ++i) deep += ")";
  deep += " 0))";
  auto o = analyze_with(dir, std::string(kHead) + rule(deep));
  check_contained(o, "error", "");
  std::string many = std::string(kHead) + "rules:\n";
  for (int i = 0; i < 20000; ++i)
    many += "  - {id: r" + std::to_string(i) + ", when: \"(op (name ?n))\", message: m}\n";
  auto start = std::chrono::steady_clock::now();
  dir.write("packs/hostile/pack.yaml", many);
  auto cfg = dir.write("cfg.yaml", "kb:\n  paths: [packs]\n");
  auto r = run_command("analyze", {example(), "--config", cfg.string(), "--kb", "hostile", "--kb",
                                   "aicpu", "--format", "json"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK(r.code == kExitUsage);  // the selected pack could not be read
  CHECK_THAT(r.err, Catch::Contains("the limit is"));
  CHECK(s < 20);
}

TEST_CASE("YAML alias bombs and huge numbers in packs are load errors") {
  TempDir dir;
  std::string bomb = std::string(kHead) + "x0: &x0 [a, a, a, a, a, a, a, a, a, a]\n";
  for (int i = 1; i < 9; ++i) {
    std::string prev = "*x";
    prev += std::to_string(i - 1);
    std::string n = std::to_string(i);
    bomb += "x";
    bomb += n;
    bomb += ": &x";
    bomb += n;
    bomb += " [";
    for (int k = 0; k < 10; ++k) {
      if (k) bomb += ", ";
      bomb += prev;
    }
    bomb += "]\n";
  }
  bomb += "lists:\n  big: *x8\n" + rule("(op (name ?name))");
  dir.write("packs/hostile/pack.yaml", bomb);
  auto cfg = dir.write("cfg.yaml", "kb:\n  paths: [packs]\n");
  auto start = std::chrono::steady_clock::now();
  auto r = run_command("analyze", {example(), "--config", cfg.string(), "--kb", "hostile"});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(20));
  CHECK(r.code == kExitUsage);
  dir.write("packs/hostile/pack.yaml", std::string(kHead) + "params:\n  p: 1e999999\n" +
                                           rule("(op (name ?name) (total_us ?t&:(> ?t ${p})))"));
  r = run_command("analyze", {example(), "--config", cfg.string(), "--kb", "hostile"});
  CHECK(r.code == kExitUsage);
  CHECK_THAT(r.err, Catch::Contains("out of range"));
}

TEST_CASE("pack test fixtures stay inside the pack and only insert rows") {
  TempDir dir;
  dir.write("p/hostile/pack.yaml", std::string(kHead) + rule("(op (name ?name))"));
  std::filesystem::create_directories(dir.path() / "p/hostile/tests/fixtures");
  std::filesystem::create_symlink("/dev/zero", dir.path() / "p/hostile/tests/fixtures/zero.sql");
  dir.write("p/hostile/tests/fixtures/evil.sql",
            "ATTACH DATABASE '" + (dir.path() / "attached.db").string() + "' AS x;\n");
  dir.write("p/hostile/tests/fixtures/vacuum.sql",
            "VACUUM INTO '" + (dir.path() / "vacuum_into.db").string() + "';\n");
  dir.write(
      "p/hostile/tests/fixtures/forever.sql",
      "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
      "INSERT INTO runs(id, inputs, fingerprint, created) SELECT x, '[]', x, 'now' FROM c;\n");
  dir.write("p/hostile/tests/fixtures/ext.sql", "SELECT load_extension('/tmp/nonexist.so');\n");
  dir.write("p/hostile/tests/t.yaml",
            "cases:\n"
            "  - {name: traversal, fixture: ../../../../../../../../etc/passwd, expect: []}\n"
            "  - {name: absolute, fixture: /etc/hostname, expect: []}\n"
            "  - {name: proc, fixture: /proc/self/environ, expect: []}\n"
            "  - {name: zero, fixture: fixtures/zero.sql, expect: []}\n"
            "  - {name: attach, fixture: fixtures/evil.sql, expect: []}\n"
            "  - {name: vacuum, fixture: fixtures/vacuum.sql, expect: []}\n"
            "  - {name: forever, fixture: fixtures/forever.sql, expect: []}\n"
            "  - {name: extension, fixture: fixtures/ext.sql, expect: []}\n");
  auto start = std::chrono::steady_clock::now();
  auto r = run_command("kb", {"test", (dir.path() / "p/hostile").string()});
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
  INFO(r.out << r.err);
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("0/8 cases passed"));
  CHECK_THAT(r.out, Catch::Contains("outside the pack folder"));
  CHECK_THAT(r.out, Catch::Contains("refused"));
  CHECK(r.out.find("root:") == std::string::npos);  // nothing of /etc/passwd is echoed
  CHECK_FALSE(std::filesystem::exists(dir.path() / "attached.db"));
  CHECK_FALSE(std::filesystem::exists(dir.path() / "vacuum_into.db"));
}

TEST_CASE("broken tests files are problems of the pack, not crashes") {
  TempDir dir;
  dir.write("p/hostile/pack.yaml", std::string(kHead) + rule("(op (name ?name))"));
  dir.write("p/hostile/tests/bom.yaml", std::string("\xff\xfe") + "c\0a\0s\0e\0s\0");
  dir.write("p/hostile/tests/cut.yaml", "cases:\n  - name: a\n    facts: {op: [{name: A, ");
  dir.write("p/hostile/tests/odd.yaml", "cases: [1, [2], {name: [x], expect: 5}]\n");
  auto r = run_command("kb", {"test", (dir.path() / "p/hostile").string()});
  INFO(r.out << r.err);
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("UTF-16"));
  CHECK_THAT(r.out, Catch::Contains("cut.yaml:"));
}

TEST_CASE("configs with wrong shapes are usage errors naming the line") {
  TempDir dir;
  for (const char* text :
       {"kb:\n  paths: [{a: 1}]\n", "kb:\n  params: {aicpu: {min_task_us: [1]}}\n",
        "kb:\n  params: {aicpu: {min_task_us: 1e999999}}\n", "kb: 5\n", "\"just a string\"\n",
        "kb:\n  params: {aicpu: {min_task_us: fast}}\n", "kb:\n  paths: [no/such/folder]\n",
        "kb:\n  params: {nosuchpack: {x: 1}}\n", "limits:\n  pack_time_ms: -5\n",
        "limits:\n  pack_time: fast\n", "limits:\n  pack_memory: 3 parsecs\n",
        "limits:\n  pack_memory: 1KiB\n", "limits:\n  max_input: [1]\n"}) {
    INFO(text);
    auto cfg = dir.write("c.yaml", text);
    auto r = run_command("analyze", {example(), "--config", cfg.string()});
    CHECK(r.code == kExitUsage);
    CHECK_THAT(r.err, Catch::Contains(cfg.string() + ":") || Catch::Contains("no/such/folder"));
  }
}

TEST_CASE("limits take the one unit syntax; the former keys still read, with a warning") {
  TempDir dir;
  auto now = dir.write("now.yaml",
                       "limits:\n  pack_time: 30s\n  pack_memory: 512MiB\n  max_input: 1GiB\n");
  auto r = run_command("analyze", {example(), "--config", now.string()});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, !Catch::Contains("former spelling"));
  auto old = dir.write("old.yaml", "limits:\n  pack_time_ms: 30000\n  pack_memory_mib: 512\n");
  r = run_command("analyze", {example(), "--config", old.string()});
  CHECK(r.code == 0);
  CHECK_THAT(r.err, Catch::Contains("limits.pack_time_ms is the former spelling: write "
                                    "limits.pack_time: 10s"));
  CHECK_THAT(r.err, Catch::Contains(old.string() + ":2"));
  // A limit too small for the example's inputs is enforced in its new spelling.
  auto tiny = dir.write("tiny.yaml", "limits:\n  max_input: 1k\n");
  r = run_command("analyze", {example(), "--config", tiny.string()});
  CHECK(r.code == kExitInput);
  CHECK_THAT(r.err, Catch::Contains("more than the configured limit"));
}

TEST_CASE("numbers a rule computes must be finite: that pack's error, the others' findings kept") {
  TempDir dir;
  // inf - inf is NaN; NaN reached the store as NULL and failed every analysis.
  const std::string nan = "(- (* ?t 1.0e308 10.0) (* ?t 1.0e308 10.0))";
  const std::string inf = "(* ?t 1.0e308 10.0)";
  const std::string when = "(op (name ?name) (total_us ?t&:(> ?t 0)))";
  for (const std::string& extra :
       {"    gain: " + nan + "\n", "    gain: " + inf + "\n", "    share: " + nan + "\n",
        "    evidence:\n      big: " + inf + "\n"}) {
    INFO(extra);
    auto o = analyze_with(dir, std::string(kHead) + rule(when, extra));
    check_contained(o, "error", "a rule's numbers must be finite");
    CHECK_THAT(o.pack("hostile")->error(), Catch::Contains("pack.yaml:"));
    // With a store kept, the write of the other packs' findings succeeds too.
    auto store = dir.path() / "kept.db";
    auto cfg = dir.path() / "cfg.yaml";
    auto r = run_command("analyze", {example(), "--config", cfg.string(), "--kb", "hostile", "--kb",
                                     "aicpu", "--store", store.string(), "--format", "json"});
    INFO(r.err);
    CHECK(r.code == 0);
    std::filesystem::remove(store);
  }
  // kb test catches it: a case that expects the rule to fire fails, naming why.
  dir.write("t/hostile/pack.yaml", std::string(kHead) + rule(when, "    gain: " + nan + "\n"));
  dir.write("t/hostile/tests/t.yaml",
            "cases:\n"
            "  - name: fires\n"
            "    facts: {op: [{name: A, total_us: 5}]}\n"
            "    expect: [{rule: r1}]\n"
            "  - name: silent\n"
            "    facts: {op: [{name: A, total_us: 0}]}\n"
            "    expect: []\n");
  auto r = run_command("kb", {"test", (dir.path() / "t/hostile").string()});
  INFO(r.out << r.err);
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("gain is not a number (nan)"));
}

TEST_CASE("a loop in a rule's gain, evidence or test is stopped by the time budget in-process") {
  // isolate: none runs the pack in the host process, where only the engine's own budget holds;
  // a fact query over four lists of 200 items is 1.6e9 iterations of one expression.
  std::string lists = "lists:\n";
  for (char l : {'a', 'b', 'c', 'd'}) {
    lists += std::string("  ") + l + ": [";
    for (int i = 0; i < 200; ++i) {
      if (i) lists += ",";
      lists += std::to_string(i);
    }
    lists += "]\n";
  }
  const std::string loop =
      "(progn (do-for-all-facts ((?a list-item) (?b list-item) (?c list-item) (?d list-item)) "
      "TRUE (+ 1 1)) 1.0)";
  for (const std::string& pack :
       {rule("(op (name ?name))", "    gain: " + loop + "\n"),
        rule("(op (name ?name))", "    evidence:\n      n: " + loop + "\n"),
        rule("(op (name ?name)) (test (> " + loop + " 0))")}) {
    INFO(pack);
    TempDir dir;
    auto start = std::chrono::steady_clock::now();
    auto o = analyze_with(dir, std::string(kHead) + lists + pack,
                          "limits:\n  pack_time: 1s\n  isolate: none\n");
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    check_contained(o, "budget_exceeded", "time budget of 1000 ms exceeded");
    CHECK_FALSE(o.pack("hostile")->isolated());
    CHECK(s < 30);  // the 1 s budget and the rest of the analysis; it ran for minutes
  }
}

TEST_CASE("a fixture folder's links stay inside the pack too") {
  TempDir dir;
  dir.write("p/hostile/pack.yaml", std::string(kHead) + rule("(op (name ?name))"));
  auto run = dir.path() / "p/hostile/tests/run";
  std::filesystem::create_directories(run / "deep");
  auto outside = source_dir() / "examples/resnet50_rank0_ascend_pt/ASCEND_PROFILER_OUTPUT";
  std::filesystem::create_symlink(outside / "kernel_details.csv", run / "kernel_details.csv");
  auto nested = dir.path() / "p/hostile/tests/nested";
  std::filesystem::create_directories(nested / "deep");
  std::filesystem::create_symlink("/etc/passwd", nested / "deep" / "passwd");
  auto folder = dir.path() / "p/hostile/tests/folder";
  std::filesystem::create_directories(folder);
  std::filesystem::create_symlink(outside, folder / "elsewhere");
  // A link that stays inside the pack is no escape.
  auto fine = dir.path() / "p/hostile/tests/fine";
  std::filesystem::create_directories(fine);
  std::filesystem::create_directories(dir.path() / "p/hostile/tests/data");
  std::filesystem::copy_file(outside / "kernel_details.csv",
                             dir.path() / "p/hostile/tests/data/kernel_details.csv");
  std::filesystem::create_symlink("../data/kernel_details.csv", fine / "kernel_details.csv");
  dir.write("p/hostile/tests/t.yaml",
            "cases:\n"
            "  - {name: link, fixture: run, expect: []}\n"
            "  - {name: nested, fixture: nested, expect: []}\n"
            "  - {name: folder, fixture: folder, expect: []}\n"
            "  - {name: fine, fixture: fine, expect: []}\n");
  auto r = run_command("kb", {"test", (dir.path() / "p/hostile").string()});
  INFO(r.out << r.err);
  CHECK(r.code == kExitPack);
  CHECK_THAT(r.out, Catch::Contains("holds kernel_details.csv, a link to outside the pack"));
  CHECK_THAT(r.out, Catch::Contains("holds deep/passwd, a link to outside the pack"));
  CHECK_THAT(r.out, Catch::Contains("holds elsewhere, a link to outside the pack"));
  CHECK_THAT(r.out, !Catch::Contains("fixture 'fine'"));
  CHECK(r.out.find("root:") == std::string::npos);
}

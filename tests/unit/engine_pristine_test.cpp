// A compiled pack keeps the environment its constructs were checked in (pristine) for the first
// evaluation in a process; every evaluation still starts from an environment no other touched.
#include <malloc.h>

#include <catch2/catch.hpp>
#include <set>

#include "engine/clips/pristine_environment.h"
#include "engine/evaluator.h"
#include "engine/kb/compiler.h"
#include "engine/kb/reader.h"
#include "engine/pack_child.h"
#include "kb_support.h"

using namespace perfsage;
using namespace perfsage::engine;

namespace {

CompiledPack compiled_pack() {
  std::vector<LoadMessage> messages;
  auto pack = read_pack_text(
      "name: every_op\nversion: 0.1.0\nuses: [op]\nrules:\n  - id: op_seen\n"
      "    when: (op (name ?name) (total_us ?total))\n    message: \"{?name}\"\n"
      "    subjects: [name]\n",
      "/packs/every_op/pack.yaml", messages);
  REQUIRE(pack);
  auto compiled = compile_pack(*pack, messages, *test::catalog());
  REQUIRE(compiled.valid);
  return compiled;
}

FactSource ops(std::vector<std::string> names) {
  return [names](const facts::FactType& t) {
    std::vector<facts::SlotValues> out;
    if (t.name == "op")
      for (const auto& n : names)
        out.push_back(
            {{"name", clips::Value::of_string(n)}, {"total_us", clips::Value::of_float(100)}});
    return out;
  };
}

std::set<std::string> subjects(const PackEvaluation& pe) {
  REQUIRE(pe.result.status == "ok");
  std::set<std::string> out;
  for (const auto& f : pe.findings) out.insert(f.subjects(0));
  return out;
}

}  // namespace

TEST_CASE("each evaluation of a compiled pack sees only its own facts") {
  CompiledPack pack = compiled_pack();
  REQUIRE(pack.pristine);
  const CompiledPack copy = pack;  // copies share the one pristine environment

  // An isolated child takes its own copy of the pristine environment; this process's stays.
  CHECK(subjects(evaluate_pack_in_child(pack, ops({"Cast"}), 1000, "ascend", {})) ==
        std::set<std::string>{"Cast"});
  CHECK(subjects(evaluate_pack(pack, ops({"MatMul", "Conv2D"}), 1000, "ascend")) ==
        std::set<std::string>{"MatMul", "Conv2D"});
  // Used once here: gone for every copy, so the next evaluations build their own.
  CHECK_FALSE(copy.pristine->take());
  CHECK(subjects(evaluate_pack(copy, ops({"Add"}), 1000, "ascend")) ==
        std::set<std::string>{"Add"});
  CHECK(subjects(evaluate_pack(pack, ops({"Mul"}), 1000, "ascend")) ==
        std::set<std::string>{"Mul"});
  CHECK(subjects(evaluate_pack_in_child(pack, ops({"Relu"}), 1000, "ascend", {})) ==
        std::set<std::string>{"Relu"});
}

TEST_CASE("a pack set whose pristine environments were released evaluates the same") {
  PackSet set;
  set.packs.push_back(compiled_pack());
  set.catalog = test::catalog();
  release_pristine_environments(set);
  // Released: nothing is left to take; the evaluation builds its own environment.
  CHECK_FALSE(set.packs[0].pristine->take());
  CHECK(subjects(evaluate_pack(set.packs[0], ops({"MatMul", "Cast"}), 1000, "ascend")) ==
        std::set<std::string>{"MatMul", "Cast"});
  release_pristine_environments(set);  // again: nothing to free, no error
}

TEST_CASE("released pristine environments are freed even where environments are left to exit") {
  // A process that leaves its environments to its exit (the CLI, a daemon worker) still gives
  // the released ones back: they are released so that a big input's ingest has their memory.
  clips::leave_environments_to_exit(64u << 20);
  struct Restore {
    ~Restore() { clips::leave_environments_to_exit(0); }
  } restore;
  PackSet set;
  for (int i = 0; i < 8; ++i) set.packs.push_back(compiled_pack());
  set.catalog = test::catalog();
  const size_t before = mallinfo2().uordblks;
  release_pristine_environments(set);
  const size_t after = mallinfo2().uordblks;
  INFO("in use before " << before << " B, after " << after << " B");
  // Eight environments of at least a few hundred kB each.
  CHECK(after + (2u << 20) < before);
}

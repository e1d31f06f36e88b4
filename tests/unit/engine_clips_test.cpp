// CLIPS environment wrapper, sandbox and budget.
#include <catch2/catch.hpp>

#include "engine/clips/environment.h"
#include "engine/clips/sandbox.h"
#include "engine/error.h"

using namespace perfsage::engine;
using clips::Value;

TEST_CASE("environment loads constructs, asserts through the fact API and reads facts back") {
  clips::Environment env;
  auto errors = env.load(
      "(deftemplate op (slot name (type STRING)) (slot us (type FLOAT)) (slot n (type INTEGER)))\n"
      "(deftemplate out (slot name (type STRING)) (multislot tags))\n"
      "(defrule long (op (name ?n) (us ?u&:(> ?u 10.0))) => (assert (out (name ?n) (tags a \"b\" "
      "3))))\n");
  REQUIRE(errors.empty());
  auto* op = env.find_template("op");
  REQUIRE(op);
  env.assert_fact(op, {{"name", Value::of_string("Cast 1")}, {"us", Value::of_float(12.5)}});
  env.assert_fact(op, {{"name", Value::of_string("Add")}, {"us", Value::of_float(1.0)}});
  env.start_budget({});
  auto outcome = env.run();
  CHECK(outcome.status == clips::RunStatus::ok);
  CHECK(outcome.fired == 1);
  auto facts = env.facts("out");
  REQUIRE(facts.size() == 1);
  CHECK(facts[0]["name"].text == "Cast 1");
  REQUIRE(facts[0]["tags"].items.size() == 3);
  CHECK(facts[0]["tags"].items[0].type == clips::ValueType::Symbol);
  CHECK(facts[0]["tags"].items[1].type == clips::ValueType::String);
  CHECK(facts[0]["tags"].items[2].integer == 3);
  // Defaults apply to slots not given.
  CHECK(env.facts("op")[1]["n"].integer == 0);
}

TEST_CASE("asserting a bad slot or a wrong type throws instead of storing garbage") {
  clips::Environment env;
  REQUIRE(env.load("(deftemplate op (slot n (type INTEGER)))").empty());
  auto* op = env.find_template("op");
  CHECK_THROWS_AS(env.assert_fact(op, {{"nope", Value::of_int(1)}}), EngineError);
  CHECK_THROWS_AS(env.assert_fact(op, {{"n", Value::of_string("x")}}), EngineError);
  CHECK(env.facts("op").empty());
}

TEST_CASE("a fact equal in every slot to an asserted one is no refusal") {
  // Two roofline rows of one op with the same shapes are one fact: CLIPS keeps one and
  // returns NULL for the second, which must not fail the pack.
  clips::Environment env;
  REQUIRE(env.load("(deftemplate op (slot name (type STRING)) (slot us (type FLOAT)))").empty());
  auto* op = env.find_template("op");
  env.assert_fact(op, {{"name", Value::of_string("MatMul")}, {"us", Value::of_float(2.5)}});
  CHECK_NOTHROW(
      env.assert_fact(op, {{"name", Value::of_string("MatMul")}, {"us", Value::of_float(2.5)}}));
  CHECK(env.facts("op").size() == 1);
}

TEST_CASE("a refused fact names the slot and the value") {
  clips::Environment env;
  REQUIRE(env.load("(deftemplate op (slot name (type STRING)) (slot n (type INTEGER)))").empty());
  auto* op = env.find_template("op");
  CHECK_THROWS_WITH(env.assert_fact(op, {{"n", Value::of_float(2.5)}}),
                    Catch::Contains("'2.5'") && Catch::Contains("slot 'n'"));
}

TEST_CASE("parse errors carry the line inside the loaded text and output is captured") {
  clips::Environment env;
  auto errors =
      env.load("(deftemplate a (slot x))\n\n(defrule r\n  (a (x ?x))\n  (a (y ?y))\n  =>)\n");
  REQUIRE_FALSE(errors.empty());
  CHECK(errors[0].line == 5);
  CHECK(errors[0].text.find("y") != std::string::npos);
  CHECK_FALSE(env.errors_text().empty());
}

TEST_CASE("sandbox removes functions that touch the OS, load code, block or exit") {
  for (const char* f : {"system", "open", "remove", "rename", "load", "batch*", "bload", "save",
                        "dribble-on", "read", "readline", "exit", "eval", "build", "while"}) {
    INFO(f);
    CHECK_FALSE(clips::sandbox_allows(f));
    clips::Environment env;
    auto errors = env.load(std::string("(defrule r => (") + f + " \"x\"))");
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].text.find("Missing function declaration") != std::string::npos);
  }
  CHECK(clips::sandbox_reason("system").find("operating system") != std::string::npos);
  CHECK(clips::sandbox_allows("str-index"));
  // An unsandboxed environment still has them (the sandbox is what removes them).
  clips::Environment open(false);
  CHECK(open.load("(defrule r => (printout t (str-length \"abc\") crlf))").empty());
}

TEST_CASE("an infinite rule loop is stopped by the time budget and reported") {
  clips::Environment env;
  REQUIRE(env.load("(deftemplate c (slot n (type INTEGER)))\n"
                   "(defrule loop (c (n ?n)) => (assert (c (n (+ ?n 1)))))\n")
              .empty());
  env.assert_fact(env.find_template("c"), {{"n", Value::of_int(0)}});
  Budget b;
  b.time = std::chrono::milliseconds(200);
  b.max_firings = -1;
  env.start_budget(b);
  auto outcome = env.run();
  CHECK(outcome.status == clips::RunStatus::time_exceeded);
  CHECK(outcome.fired > 0);
  CHECK(outcome.detail.find("200 ms") != std::string::npos);
}

TEST_CASE("the firing limit and the memory cap stop runaway runs") {
  const char* loop =
      "(deftemplate c (slot n (type INTEGER)))\n"
      "(defrule loop (c (n ?n)) => (assert (c (n (+ ?n 1)))))\n";
  {
    clips::Environment env;
    REQUIRE(env.load(loop).empty());
    env.assert_fact(env.find_template("c"), {{"n", Value::of_int(0)}});
    Budget b;
    b.max_firings = 50;
    env.start_budget(b);
    auto outcome = env.run();
    CHECK(outcome.status == clips::RunStatus::firing_limit);
    CHECK(outcome.fired == 50);
  }
  {
    clips::Environment env;
    REQUIRE(env.load(loop).empty());
    env.assert_fact(env.find_template("c"), {{"n", Value::of_int(0)}});
    Budget b;
    b.max_firings = -1;
    b.time = std::chrono::milliseconds(20000);
    b.memory_bytes = static_cast<std::size_t>(env.memory_used()) + 2 * 1024 * 1024;
    env.start_budget(b);
    auto outcome = env.run();
    CHECK(outcome.status == clips::RunStatus::memory_exceeded);
  }
}

// The action kinds are registered once (actions/kinds.cpp) and agree with the contract packs
// write to: every field of perfsage.v1.Action's `detail` oneof has exactly one registered kind,
// the pack reader accepts exactly those (engine/kb/action_map.h), and docs/pack-schema.json
// lists the same kinds. Dispatch goes through the registry.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/struct.pb.h>
#include <google/protobuf/util/json_util.h>

#include <catch2/catch.hpp>
#include <fstream>
#include <set>
#include <sstream>

#include "actions/kind.h"
#include "actions/plan.h"
#include "engine/kb/action_map.h"
#include "engine/kb/reader.h"
#include "store/database.h"
#include "test_support.h"

using namespace perfsage;
namespace v1 = perfsage::v1;

namespace {

std::set<std::string> registered() {
  std::set<std::string> out;
  for (const auto* k : actions::action_kinds()) out.insert(std::string(k->name()));
  return out;
}

std::set<std::string> oneof_fields() {
  std::set<std::string> out;
  const auto* oneof = v1::Action::descriptor()->FindOneofByName("detail");
  REQUIRE(oneof);
  for (int i = 0; i < oneof->field_count(); ++i) out.insert(oneof->field(i)->name());
  return out;
}

}  // namespace

TEST_CASE("action kinds: each registered once, one per field of Action's detail oneof") {
  CHECK(registered().size() == actions::action_kinds().size());  // no name twice
  CHECK(registered() == oneof_fields());
  CHECK(registered() ==
        std::set<std::string>{"aoe", "code_hint", "env_file", "fusion_switch", "onnx_rewrite"});
  for (const auto* k : actions::action_kinds()) {
    CHECK(actions::find_action_kind(k->name()) == k);
  }
  CHECK(actions::find_action_kind("shell") == nullptr);
}

TEST_CASE("action kinds: the pack reader accepts exactly the registered kinds") {
  const auto& names = engine::action_kind_names();
  CHECK(std::set<std::string>(names.begin(), names.end()) == registered());
  // Declaration order of the oneof: the order the reader's error message lists them in.
  CHECK(names ==
        std::vector<std::string>{"fusion_switch", "aoe", "onnx_rewrite", "env_file", "code_hint"});
}

TEST_CASE("action kinds: a pack naming another kind is refused, listing the kinds") {
  auto pack = [](const std::string& kind) {
    return "name: probe\nversion: 1.0.0\nrules:\n  - id: r\n    when: (run_info)\n"
           "    message: m\n    action: {kind: " +
           kind + ", hint: h}\n";
  };
  std::vector<engine::LoadMessage> msgs;
  CHECK(engine::read_pack_text(pack("code_hint"), "probe/pack.yaml", msgs));
  for (const auto& m : msgs) CHECK_FALSE(m.error());
  msgs.clear();
  (void)engine::read_pack_text(pack("shell"), "probe/pack.yaml", msgs);
  bool refused = false;
  for (const auto& m : msgs) {
    refused = refused || m.text ==
                             "unknown action kind 'shell' (expected fusion_switch, aoe, "
                             "onnx_rewrite, env_file or code_hint)";
  }
  CHECK(refused);
}

TEST_CASE("action kinds: docs/pack-schema.json lists the registered kinds") {
  std::ifstream in(perfsage::test::source_dir() / "docs" / "pack-schema.json");
  REQUIRE(in);
  std::stringstream text;
  text << in.rdbuf();
  google::protobuf::Struct schema;
  REQUIRE(google::protobuf::util::JsonStringToMessage(text.str(), &schema).ok());
  const auto& action = schema.fields().at("$defs").struct_value().fields().at("action");
  const auto& kinds = action.struct_value()
                          .fields()
                          .at("properties")
                          .struct_value()
                          .fields()
                          .at("kind")
                          .struct_value()
                          .fields()
                          .at("enum")
                          .list_value();
  std::set<std::string> listed;
  for (const auto& v : kinds.values()) listed.insert(v.string_value());
  CHECK(listed == registered());
}

TEST_CASE("action kinds: a finding's kind is its `kind`, else the detail field it fills") {
  v1::Action a;
  CHECK(actions::action_kind_of(a).empty());
  a.mutable_env_file()->add_set("A=1");
  CHECK(actions::action_kind_of(a) == "env_file");
  a.mutable_onnx_rewrite()->set_pass("remove_identity");
  CHECK(actions::action_kind_of(a) == "onnx_rewrite");
  a.set_kind("code_hint");
  CHECK(actions::action_kind_of(a) == "code_hint");
}

TEST_CASE("action kinds: planning and rendering go through the registry") {
  perfsage::test::TempDir dir;
  store::Database db((dir.path() / "a.db").string());  // migrated when opened
  v1::Finding f;
  f.set_id("f1");
  f.set_title("hint");
  f.mutable_action()->mutable_code_hint()->set_hint("use channels_last");
  auto planned = actions::plan_actions(db, {1, "job", "2024-01-01T00:00:00Z"}, {f});
  REQUIRE(planned.plans.size() == 1);
  CHECK(planned.plans[0].kind() == "code_hint");
  REQUIRE(planned.plans[0].files_size() == 1);
  CHECK(planned.plans[0].files(0).path() == "perfsage_code_hints.txt");

  // A kind nobody registered is refused by name, when planned and when rendered.
  v1::Finding unknown = f;
  unknown.mutable_action()->set_kind("shell");
  CHECK_THROWS_WITH(actions::plan_actions(db, {1, "job", "t"}, {unknown}),
                    Catch::Contains("unknown action kind 'shell'"));
  v1::PlannedAction p;
  p.set_kind("shell");
  CHECK_THROWS_WITH(actions::render_action(db, p, false, "out"),
                    Catch::Contains("unknown action kind 'shell'"));
}

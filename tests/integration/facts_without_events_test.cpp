// Facts read the derived tables, never the events: every fact type gives the same facts once a
// run's event blocks are gone. That is what a run assembled from rank extracts (no events) needs
// to be evaluated like the run analysed on one machine (docs/scale-out.md, "Cluster runs"), and
// what keeps fact prefetch from aggregating millions of events again (docs/performance.md).
#include "app/knowledge.h"
#include "cli_support.h"
#include "engine/fact_prefetch.h"
#include "store/database.h"
#include "store/file_bytes.h"

using namespace perfsage::test;
namespace fs = std::filesystem;

namespace {

// Fact types that still read events, and why.
const std::map<std::string, std::string>& event_readers() {
  static const std::map<std::string, std::string> types{
      {"graph_node", "the matched ops' time per op name from the op tasks (graphs are per run)"},
  };
  return types;
}

std::string text_of(const std::vector<perfsage::engine::facts::SlotValues>& rows) {
  std::string s;
  for (const auto& row : rows) {
    for (const auto& [slot, v] : row)
      s += slot + "=" + v.text + "/" + std::to_string(v.integer) + "/" + std::to_string(v.real) +
           ";";
    s += "\n";
  }
  return s;
}

// Every fact type of the run's store, by name.
std::map<std::string, std::string> facts_of(perfsage::store::Database& db) {
  auto catalog = perfsage::app::fact_catalog();
  std::vector<const perfsage::engine::facts::FactType*> types;
  for (const auto& t : catalog->types()) types.push_back(&t);
  auto got = perfsage::engine::prefetch_facts(db, 1, types, 1);
  std::map<std::string, std::string> out;
  for (const auto& [name, result] : got) {
    INFO(name);
    CHECK_FALSE(result.error);
    out[name] = text_of(result.facts);
  }
  return out;
}

}  // namespace

TEST_CASE("every fact type gives the same facts once the run's events are gone", "[facts]") {
  PERFSAGE_REQUIRE_SAMPLES();
  TempDir dir;
  std::vector<fs::path> inputs;
  for (const auto& e : fs::directory_iterator(samples_dir() / "kineto")) inputs.push_back(e.path());
  inputs.push_back(samples_dir() / "ascend" / "mstt");
  inputs.push_back(source_dir() / "examples" / "resnet50_rank0_ascend_pt");
  std::sort(inputs.begin(), inputs.end());
  int compared = 0;
  for (const auto& input : inputs) {
    INFO(input.filename().string());
    const std::string store = (dir.path() / (input.filename().string() + ".db")).string();
    REQUIRE(run_command("analyze", {input.string(), "--store", store, "-q"}).code == 0);
    perfsage::store::Database db(store);
    auto before = facts_of(db);
    db.exec("DELETE FROM event_blocks");
    auto after = facts_of(db);
    for (const auto& [type, facts] : before) {
      INFO("fact type " << type);
      if (event_readers().count(type)) continue;
      CHECK(after.at(type) == facts);
      compared += facts.empty() ? 0 : 1;
    }
  }
  CHECK(compared > 40);  // fact types with facts, summed over the inputs
  for (const auto& [type, why] : event_readers()) {
    INFO(type << " is listed as reading events but is no fact type");
    CHECK(perfsage::app::fact_catalog()->find(type) != nullptr);
  }
}

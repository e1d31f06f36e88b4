// The pack pages stay true to the packs: every rule of every built-in pack has a section in
// docs/packs/<pack>.md (community packs: their README.md) saying what it needs (graph only,
// profile, counters, cluster output) and how the gain is estimated; no page documents a rule
// that does not exist; a rule without a gain expression is not documented with one, and a rule
// that only fires on a graph without a profile says "graph only".
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "engine/kb/reader.h"
#include "test_support.h"

using namespace perfsage;
namespace fs = std::filesystem;

namespace {

struct Section {
  std::string heading, needs, gain;
  int line = 0;
};

// `### ` headings naming rules in backticks, each with its "* **Needs:**" and "* **Gain:**"
// lines (up to the next heading of level 1-3).
std::map<std::string, Section> rule_sections(const fs::path& page) {
  std::ifstream in(page);
  REQUIRE(in.good());
  static const std::regex rule_heading(R"(^### `)");
  static const std::regex any_heading(R"(^#{1,3} )");
  static const std::regex name_in_ticks(R"(`([A-Za-z0-9_]+)`)");
  std::map<std::string, Section> out;
  std::vector<std::string> current;
  Section sec;
  auto flush = [&] {
    for (const auto& id : current) out[id] = sec;
    current.clear();
  };
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (std::regex_search(line, any_heading)) {
      flush();
      if (std::regex_search(line, rule_heading)) {
        sec = Section{line, "", "", n};
        for (std::sregex_iterator it(line.begin(), line.end(), name_in_ticks), end; it != end; ++it)
          current.push_back((*it)[1]);
      }
      continue;
    }
    if (line.rfind("* **Needs:** ", 0) == 0) sec.needs = line.substr(13);
    if (line.rfind("* **Gain:** ", 0) == 0) sec.gain = line.substr(12);
  }
  flush();
  return out;
}

std::string expand_macros(std::string text, const engine::Pack& pack) {
  for (const auto& m : pack.macros) {
    const std::string ref = "${" + m.name + "}";
    for (size_t at; (at = text.find(ref)) != std::string::npos;)
      text.replace(at, ref.size(), m.text);
  }
  return text;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// What is wrong with `page` as the documentation of the pack in `dir`, one line per problem.
std::vector<std::string> page_problems(const fs::path& dir, const fs::path& page) {
  std::vector<engine::LoadMessage> msgs;
  auto pack = engine::read_pack(dir, msgs);
  if (!pack) return {dir.string() + ": pack does not load"};
  if (!fs::exists(page)) return {page.string() + ": no page for pack " + pack->name};
  const auto sections = rule_sections(page);
  std::vector<std::string> out;
  auto problem = [&](const std::string& id, const std::string& what) {
    out.push_back(page.string() + ": " + pack->name + "." + id + ": " + what);
  };
  std::set<std::string> ids;
  for (const auto& rule : pack->rules) {
    ids.insert(rule.id);
    auto it = sections.find(rule.id);
    if (it == sections.end()) {
      problem(rule.id, "no '### `" + rule.id + "`' section");
      continue;
    }
    const Section& s = it->second;
    if (s.needs.empty()) problem(rule.id, "no '* **Needs:**' line");
    if (s.gain.empty()) problem(rule.id, "no '* **Gain:**' line");
    // Documented gains exist in the pack and the other way round.
    if (!s.gain.empty() && starts_with(s.gain, "none") == rule.gain.present())
      problem(rule.id, rule.gain.present() ? "the pack estimates a gain, the page says none"
                                           : "the pack has no gain, the page gives one");
    // A rule that only fires without a profile is said to need the graph only.
    if (expand_macros(rule.when.text, *pack).find("(base none)") != std::string::npos &&
        !starts_with(s.needs, "graph only"))
      problem(rule.id, "fires only without a profile but Needs is not 'graph only'");
  }
  for (const auto& [id, s] : sections) {
    if (!s.needs.empty() && !starts_with(s.needs, "graph") && !starts_with(s.needs, "profile") &&
        !starts_with(s.needs, "cluster output"))
      problem(id, "Needs does not start with graph, profile or cluster output: " + s.needs);
    if (!ids.count(id)) problem(id, "section at line " + std::to_string(s.line) + " names no rule");
  }
  return out;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += l + "\n";
  return s;
}

}  // namespace

TEST_CASE("every built-in pack rule has a docs/packs section with what it needs and its gain") {
  const fs::path kb = test::source_dir() / "knowledge_bases" / "builtin";
  const fs::path docs = test::source_dir() / "docs" / "packs";
  std::set<std::string> packs;
  for (const auto& e : fs::directory_iterator(kb)) {
    if (!fs::exists(e.path() / "pack.yaml")) continue;
    packs.insert(e.path().filename().string());
    const auto problems = page_problems(e.path(), docs / (e.path().filename().string() + ".md"));
    INFO(joined(problems));
    CHECK(problems.empty());
  }
  CHECK(packs.size() >= 15);
  // No page for a pack that is not shipped.
  for (const auto& e : fs::directory_iterator(docs)) {
    INFO(e.path().string());
    CHECK(packs.count(e.path().stem().string()) == 1);
  }
}

TEST_CASE("every community pack rule has a README section with what it needs and its gain") {
  const fs::path kb = test::source_dir() / "knowledge_bases" / "community";
  int n = 0;
  for (const auto& e : fs::directory_iterator(kb)) {
    if (!fs::exists(e.path() / "pack.yaml")) continue;
    const auto problems = page_problems(e.path(), e.path() / "README.md");
    INFO(joined(problems));
    CHECK(problems.empty());
    ++n;
  }
  CHECK(n >= 2);
}

TEST_CASE("the pack page check finds a missing section, a missing Needs line and a stale gain") {
  test::TempDir tmp;
  const fs::path& dir = tmp.path();
  tmp.write("p/pack.yaml", R"(name: p
version: 1.0.0
engine: ">=0.1"
uses: [op]
rules:
  - id: with_gain
    title: "t"
    severity: auto
    when: (op (name ?n) (total_us ?t))
    message: "m"
    gain: ?t
  - id: without_gain
    title: "t"
    severity: low
    when: (op (name ?n))
    message: "m"
)");
  tmp.write("good.md",
            "# Pack `p`\n\n### `with_gain`\n\n* **Needs:** profile\n"
            "* **Gain:** its time\n\n### `without_gain`\n\n"
            "* **Needs:** profile (op table)\n* **Gain:** none\n");
  CHECK(page_problems(dir / "p", dir / "good.md").empty());
  // One rule undocumented, a Needs line under a non-rule heading, a gain the pack lacks, a
  // section for a rule that is gone.
  tmp.write("bad.md",
            "### `with_gain`\n\n* **Gain:** none\n\n## Other\n\n"
            "* **Needs:** profile\n\n### `renamed`\n\n"
            "* **Needs:** counters\n* **Gain:** x\n");
  const auto problems = page_problems(dir / "p", dir / "bad.md");
  INFO(joined(problems));
  REQUIRE(problems.size() == 5);
  CHECK_THAT(problems[0], Catch::Contains("p.with_gain: no '* **Needs:**' line"));
  CHECK_THAT(problems[1],
             Catch::Contains("p.with_gain: the pack estimates a gain, the page says none"));
  CHECK_THAT(problems[2], Catch::Contains("p.without_gain: no '### `without_gain`' section"));
  CHECK_THAT(problems[3], Catch::Contains("p.renamed: Needs does not start with"));
  CHECK_THAT(problems[4], Catch::Contains("p.renamed: section at line 9 names no rule"));
}

// perfsage kb: knowledge-base tooling. Each subcommand parses its options and renders; the
// work is done by app/.
#include <boost/program_options.hpp>

#include "app/front_end_names.h"
#include "app/knowledge.h"
#include "app/pack_status.h"
#include "app/pack_testing.h"
#include "app/report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/kb_commands.h"

namespace po = boost::program_options;

namespace perfsage::cli {
namespace {

int kb_list(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb list [options]\n\nLists every pack in the search paths.\n\nOptions");
  std::string format = "text", config;
  opts.add_options()("help,h", "show this help")(
      "format", po::value(&format), "text | json | names (one valid pack's name a line)")(
      "config", po::value(&config), "YAML config with pack paths");
  po::variables_map vm;
  if (auto stop = parse_command_line("kb list", args, opts, {}, vm, out, err, [&] {
        if (format != "text" && format != "json" && format != "names")
          throw po::error("--format must be text, json or names");
      })) {
    return *stop;
  }
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  auto listing = app::list_packs(ctx->config, ctx->resources);
  for (const auto& m : listing.messages) err << m.str() << "\n";
  const auto& packs = listing.packs;
  if (format == "json") {
    out << app::to_json(app::pack_list(packs));
    return kExitOk;
  }
  if (format == "names") {  // for shell completion: no warnings, nothing but the names
    for (const auto& p : packs)
      if (p.valid) out << p.name << "\n";
    return kExitOk;
  }
  for (const auto& p : packs) {
    out << p.name << " " << p.version << "  [" << p.maturity << ", " << p.source << "]"
        << (p.valid ? "" : "  INVALID: " + p.error) << "\n  " << p.description
        << "\n  rules: " << p.enabled_rules << "/" << p.rules << " enabled, tests: " << p.tests
        << ", uses:";
    for (const auto& u : p.uses) out << " " << u;
    out << "\n  " << p.dir.string() << "\n";
  }
  return kExitOk;
}

int kb_test(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb test [PACK|DIR...] [options]\n\nRuns the tests/*.yaml cases of packs (all "
      "selected packs by default).\n\nOptions");
  std::vector<std::string> names;
  std::string config;
  opts.add_options()("help,h", "show this help")("config", po::value(&config),
                                                 "YAML config with pack paths")(
      "pack", po::value(&names)->composing(), "pack names, globs or pack folders");
  po::positional_options_description pos;
  pos.add("pack", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("kb test", args, opts, pos, vm, out, err)) return *stop;
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  auto knowledge = load_knowledge(*ctx, names, err);
  if (!knowledge) return report_error(knowledge.error(), err);
  if ((*knowledge)->packs.packs.empty()) {
    err << "perfsage kb test: no pack matches the selection\n";
    return kExitUsage;
  }
  auto run = app::test_packs(**knowledge, ctx->config.limits);
  for (const auto& r : run.reports) out << r.str();
  out << "\nkb test: " << app::count_text(run.passed, "pack") << " passed, " << run.failed
      << " failed\n";
  return run.failed ? kExitPack : kExitOk;
}

int kb_facts(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb facts [options]\n\nPrints the fact types packs can match.\n\nOptions");
  std::string format = "markdown";
  opts.add_options()("help,h", "show this help")("format", po::value(&format), "markdown | json");
  po::variables_map vm;
  if (auto stop = parse_command_line("kb facts", args, opts, {}, vm, out, err, [&] {
        if (format != "markdown" && format != "json")
          throw po::error("--format must be markdown or json");
      })) {
    return *stop;
  }
  out << (format == "json" ? app::to_json(fact_types_message()) : app::facts_reference());
  return kExitOk;
}

struct Subcommand {
  const char* name;
  const char* summary;
  int (*run)(const Args&, std::ostream&, std::ostream&);
};

const Subcommand kSubcommands[] = {
    {"list", "list the packs in the search paths", kb_list},
    {"test", "run the tests of packs", kb_test},
    {"facts", "print the fact types packs can match (markdown or json)", kb_facts},
    {"validate", "check packs and report problems with codes and positions", kb_validate},
    {"lint", "check packs against the authoring rules (tests, evidence, fixes, gains)", kb_lint},
    {"describe", "list the rules of packs (text or json)", kb_describe},
    {"new", "create a pack folder with a rule and passing tests", kb_new},
    {"install", "validate, test and install a pack folder or archive for this user", kb_install},
    {"remove", "remove a pack installed with kb install", kb_remove},
    {"paths", "show where packs, hardware specs and patterns are looked for", kb_paths},
};

void kb_usage(std::ostream& os) {
  os << "usage: perfsage kb <subcommand> [options]\n\nsubcommands:\n";
  for (const auto& s : kSubcommands) {
    std::string name = s.name;
    os << "  " << name << std::string(10 - name.size(), ' ') << s.summary << "\n";
  }
  os << "\nRun 'perfsage kb <subcommand> --help' for its options.\n";
}

}  // namespace

std::vector<std::string> kb_subcommands() {
  std::vector<std::string> names;
  for (const auto& s : kSubcommands) names.push_back(s.name);
  return names;
}

int run_kb(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    kb_usage(err);
    return kExitUsage;
  }
  if (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
    kb_usage(out);
    return kExitOk;
  }
  Args rest(args.begin() + 1, args.end());
  for (const auto& s : kSubcommands)
    if (args[0] == s.name) return s.run(rest, out, err);
  err << "perfsage kb: unknown subcommand '" << args[0] << "'\n";
  kb_usage(err);
  return kExitUsage;
}

}  // namespace perfsage::cli

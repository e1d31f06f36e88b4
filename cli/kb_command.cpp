#include <boost/program_options.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/report.h"
#include "engine/facts/registry.h"
#include "engine/kb/pack_tests.h"
#include "engine/kb/reader.h"
#include "engine/kb/selection.h"

namespace po = boost::program_options;

namespace perfsage::cli {
namespace {

int kb_list(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage kb list [options]");
  std::string format = "text", config;
  opts.add_options()("help,h", "show this help")("format", po::value(&format), "text | json")(
      "config", po::value(&config), "YAML config with pack paths");
  po::variables_map vm;
  if (auto stop = parse_command_line("kb list", args, opts, {}, vm, out, err, [&] {
        if (format != "text" && format != "json") throw po::error("--format must be text or json");
      })) {
    return *stop;
  }
  std::vector<engine::LoadMessage> messages;
  engine::Selection sel;
  if (!config.empty()) sel = engine::read_config(config, messages);
  for (const auto& m : messages) err << m.str() << "\n";
  auto packs = engine::list_packs(sel);
  if (format == "json") {
    perfsage::v1::PackList list;
    for (const auto& p : packs) {
      auto* i = list.add_packs();
      i->set_name(p.name);
      i->set_version(p.version);
      i->set_description(p.description);
      i->set_maturity(p.maturity);
      for (const auto& a : p.applies_to) i->add_applies_to(a);
      for (const auto& u : p.uses) i->add_uses(u);
      i->set_rules(static_cast<int64_t>(p.rules));
      i->set_path(p.dir.string());
    }
    out << to_json(list);
    return kExitOk;
  }
  for (const auto& p : packs) {
    out << p.name << " " << p.version << "  [" << p.maturity << "]" << (p.valid ? "" : "  INVALID")
        << "\n  " << p.description << "\n  rules: " << p.enabled_rules << "/" << p.rules
        << " enabled, tests: " << p.tests << ", uses:";
    for (const auto& u : p.uses) out << " " << u;
    out << "\n  " << p.dir.string() << "\n";
  }
  return kExitOk;
}

int kb_test(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage kb test [PACK...] [options]");
  std::vector<std::string> names;
  std::string config;
  opts.add_options()("help,h", "show this help")("config", po::value(&config),
                                                 "YAML config with pack paths")(
      "pack", po::value(&names)->composing(), "pack names or globs (default: all)");
  po::positional_options_description pos;
  pos.add("pack", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("kb test", args, opts, pos, vm, out, err)) return *stop;
  std::vector<engine::LoadMessage> messages;
  engine::Selection sel;
  if (!config.empty()) sel = engine::read_config(config, messages);
  sel.only = names;
  auto loaded = engine::load_pack_set(sel);
  for (const auto& m : messages) err << m.str() << "\n";
  for (const auto& m : loaded.messages) err << m.str() << "\n";
  if (loaded.set.packs.empty()) {
    err << "perfsage kb test: no pack matches the selection\n";
    return kExitUsage;
  }
  int failed = 0, passed = 0;
  for (const auto& compiled : loaded.set.packs) {
    auto report = engine::run_pack_tests(compiled.pack);
    out << report.str();
    if (report.ok()) {
      ++passed;
    } else {
      ++failed;
    }
  }
  out << "\nkb test: " << passed << " pack(s) passed, " << failed << " failed\n";
  return failed ? kExitInput : kExitOk;
}

}  // namespace

int run_kb(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.empty()) {
    err << "usage: perfsage kb list|test|facts [options]\n";
    return kExitUsage;
  }
  Args rest(args.begin() + 1, args.end());
  if (args[0] == "list") return kb_list(rest, out, err);
  if (args[0] == "test") return kb_test(rest, out, err);
  if (args[0] == "facts") {
    out << engine::facts::facts_markdown();
    return kExitOk;
  }
  err << "perfsage kb: unknown subcommand '" << args[0] << "'\n";
  return kExitUsage;
}

}  // namespace perfsage::cli

// perfsage kb validate | lint | describe: what is in packs and what is wrong with them.
#include <boost/program_options.hpp>
#include <filesystem>

#include "app/front_end_names.h"
#include "app/kb_check.h"
#include "app/knowledge.h"
#include "app/report.h"
#include "cli/command_line.h"
#include "cli/context.h"
#include "cli/kb_commands.h"

namespace po = boost::program_options;

namespace perfsage::cli {
namespace fs = std::filesystem;
namespace {

// The pack folders named (folders holding pack.yaml, or folders of such folders); with none,
// every pack folder in the search paths.
std::vector<fs::path> pack_folders(const std::vector<std::string>& named, const Context& ctx,
                                   std::ostream& err) {
  std::vector<fs::path> out;
  std::vector<app::LoadMessage> msgs;
  if (named.empty()) {
    auto sel = app::compose_selection(ctx.config, ctx.resources, {}, msgs);
    for (const auto& p : sel.paths) {
      std::error_code ec;
      if (fs::exists(p.path / "pack.yaml", ec)) {
        out.push_back(p.path);
        continue;
      }
      std::vector<fs::path> dirs;
      for (const auto& e : fs::directory_iterator(p.path, ec))
        if (e.is_directory() && fs::exists(e.path() / "pack.yaml", ec)) dirs.push_back(e.path());
      std::sort(dirs.begin(), dirs.end());
      out.insert(out.end(), dirs.begin(), dirs.end());
    }
    return out;
  }
  for (const auto& n : named) {
    std::error_code ec;
    if (fs::exists(fs::path(n) / "pack.yaml", ec)) {
      out.emplace_back(n);
    } else {
      err << "perfsage kb: " << n << ": no pack.yaml in this folder\n";
      out.emplace_back(n);  // reported as unreadable by the check itself
    }
  }
  return out;
}

int run_checks(const char* command, bool lint, const Args& args, std::ostream& out,
               std::ostream& err) {
  po::options_description opts(
      std::string("perfsage kb ") + command + " [DIR...] [options]\n\n" +
      (lint ? "Checks packs against the authoring rules: tests, evidence, a fix (or no_action),\n"
              "a gain, references, documented params, plus everything validate checks.\n"
            : "Reads and compiles packs as loading would and reports every problem with its\n"
              "code and position (errors make a pack unusable; warnings do not).\n") +
      "With no DIR, every pack in the search paths.\n\nExit codes: 0 clean, 6 errors"
      " (lint: also warnings with --strict), 2 bad usage.\n\nOptions");
  std::vector<std::string> dirs;
  std::string format = "text", config;
  opts.add_options()("help,h", "show this help")("format", po::value(&format), "text | json")(
      "config", po::value(&config), "YAML config with pack paths")(
      "strict", "count warnings as failures")("dir", po::value(&dirs)->composing(), "pack folders");
  po::positional_options_description pos;
  pos.add("dir", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line(command, args, opts, pos, vm, out, err, [&] {
        if (format != "text" && format != "json") throw po::error("--format must be text or json");
      })) {
    return *stop;
  }
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  perfsage::v1::PackCheckList list;
  bool ok = true;
  for (const auto& dir : pack_folders(dirs, *ctx, err)) {
    auto check = lint ? app::lint_pack_dir(dir) : app::validate_pack_dir(dir);
    bool clean = check.valid && (!vm.count("strict") || check.messages.empty());
    ok = ok && clean;
    *list.add_packs() = app::to_proto(check);
    if (format == "text") {
      out << (check.pack.empty() ? dir.string() : check.pack + " " + check.version) << ": "
          << (check.valid ? (check.messages.empty() ? "ok" : "ok with warnings") : "INVALID")
          << "\n";
      for (const auto& m : check.messages) out << "  " << m.str() << "\n";
    }
  }
  list.set_ok(ok);
  if (format == "json") out << app::to_json(list);
  return ok ? kExitOk : kExitPack;
}

}  // namespace

int kb_validate(const Args& args, std::ostream& out, std::ostream& err) {
  return run_checks("validate", false, args, out, err);
}

int kb_lint(const Args& args, std::ostream& out, std::ostream& err) {
  return run_checks("lint", true, args, out, err);
}

int kb_describe(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb describe [PACK...] [options]\n\nLists the rules of the selected packs (all by "
      "default): id, title, severity, fact types matched, action.\n\nOptions");
  std::vector<std::string> names;
  std::string format = "text", config;
  opts.add_options()("help,h", "show this help")("format", po::value(&format), "text | json")(
      "config", po::value(&config), "YAML config with pack paths and selection")(
      "pack", po::value(&names)->composing(), "pack names, globs or folders");
  po::positional_options_description pos;
  pos.add("pack", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("kb describe", args, opts, pos, vm, out, err, [&] {
        if (format != "text" && format != "json") throw po::error("--format must be text or json");
      })) {
    return *stop;
  }
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  auto kn = load_knowledge(*ctx, names, err);
  if (!kn) return report_error(kn.error(), err);
  perfsage::v1::RuleList list;
  for (const auto& cp : (*kn)->packs.packs) {
    for (const auto& r : cp.pack.rules) {
      auto* i = list.add_rules();
      i->set_pack(cp.pack.name);
      i->set_pack_version(cp.pack.version);
      i->set_source(cp.pack.source);
      i->set_rule(r.id);
      i->set_title(r.title);
      i->set_severity(r.severity);
      i->set_category(r.category);
      for (const auto& t : r.tags) i->add_tags(t);
      i->set_enabled(r.enabled);
      if (const auto* c = cp.rule(r.id))
        for (const auto& t : c->fact_types) i->add_fact_types(t);
      if (r.action) i->set_action_kind(r.action->kind);
      i->set_has_gain(r.gain.present());
      for (const auto& ref : r.references) i->add_references(ref);
    }
  }
  if (format == "json") {
    out << app::to_json(list);
    return kExitOk;
  }
  for (const auto& r : list.rules()) {
    out << r.pack() << "." << r.rule() << (r.enabled() ? "" : " (disabled)") << "  ["
        << r.severity() << ", " << r.category() << "]\n  " << r.title() << "\n  matches:";
    for (const auto& t : r.fact_types()) out << " " << t;
    out << (r.action_kind().empty() ? "" : "; action: " + r.action_kind()) << "\n";
  }
  return kExitOk;
}

perfsage::v1::FactTypeList fact_types_message() {
  perfsage::v1::FactTypeList list;
  for (const auto& t : app::fact_catalog()->types()) {
    auto* m = list.add_types();
    m->set_name(t.name);
    m->set_doc(t.doc);
    m->set_cardinality(t.cardinality);
    for (const auto& s : t.slots) {
      auto* slot = m->add_slots();
      slot->set_name(s.name);
      slot->set_type(app::clips_type_name(s.type));
      slot->set_unit(s.unit);
      slot->set_doc(s.doc);
      slot->set_default_value(s.default_value);
    }
  }
  return list;
}

}  // namespace perfsage::cli

// perfsage kb new | install | remove | paths: making, installing and finding packs.
#include <boost/program_options.hpp>

#include "app/front_end_names.h"
#include "app/kb_install.h"
#include "app/kb_scaffold.h"
#include "cli/command_line.h"
#include "cli/context.h"
#include "cli/kb_commands.h"

namespace po = boost::program_options;

namespace perfsage::cli {

int kb_new(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb new NAME [options]\n\nCreates the folder NAME with a pack.yaml (one documented "
      "param, one rule with evidence,\na gain and a fix) and tests that pass, to edit from there."
      "\n\nOptions");
  std::string name, dir = ".";
  opts.add_options()("help,h", "show this help")("dir", po::value(&dir),
                                                 "where to create it (default: here)")(
      "name", po::value(&name)->required(), "the pack's name: [a-z][a-z0-9_-]*");
  po::positional_options_description pos;
  pos.add("name", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("kb new", args, opts, pos, vm, out, err)) return *stop;
  auto made = app::scaffold_pack(name, dir);
  if (!made) return report_error(made.error(), err);
  const std::string p = made->string();
  out << "created " << p << "/pack.yaml and " << p << "/tests/" << name << "_test.yaml\n\n"
      << "next:\n"
      << "  edit the rule in pack.yaml (fact types: perfsage kb facts)\n"
      << "  perfsage kb test " << p << "       # the cases in tests/ must pass\n"
      << "  perfsage kb lint " << p << "       # the authoring rules\n"
      << "  perfsage analyze RUN --kb " << p << "\n"
      << "  perfsage kb install " << p << "    # for every analysis of this user\n";
  return kExitOk;
}

int kb_install(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb install PATH|ARCHIVE [options]\n\nValidates a pack (a folder, or a .tar.gz / "
      ".tgz / .zip holding one), runs its tests\nas it will run (untrusted, in a child process), "
      "and copies it into the user's pack\nfolder with its name, version, source and sha256 "
      "recorded. A failing pack is refused.\n\nOptions");
  std::string source, config;
  opts.add_options()("help,h", "show this help")("config", po::value(&config),
                                                 "YAML config (pack paths, limits)")(
      "replace", "replace an installed pack of the same name (an upgrade)")(
      "source", po::value(&source)->required(), "pack folder or archive");
  po::positional_options_description pos;
  pos.add("source", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("kb install", args, opts, pos, vm, out, err)) return *stop;
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  auto kn = load_knowledge(*ctx, {}, err);
  if (!kn) return report_error(kn.error(), err);
  app::InstallRequest req{source, vm.count("replace") > 0, app::system_clock_iso8601()};
  auto done = app::install_pack(req, ctx->resources, ctx->config, **kn);
  if (!done) return report_error(done.error(), err);
  for (const auto& m : done->messages) err << m.str() << "\n";
  out << done->tests.str() << "installed " << done->record.name() << " " << done->record.version()
      << " into " << done->installed.string() << " (sha256 " << done->record.sha256() << ")\n";
  return kExitOk;
}

int kb_remove(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb remove NAME\n\nRemoves a pack installed with kb install.\n\nOptions");
  std::string name;
  opts.add_options()("help,h", "show this help")("name", po::value(&name)->required(),
                                                 "the pack's name");
  po::positional_options_description pos;
  pos.add("name", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("kb remove", args, opts, pos, vm, out, err)) return *stop;
  auto ctx = load_context("", err);
  if (!ctx) return report_error(ctx.error(), err);
  auto removed = app::remove_pack(name, ctx->resources);
  if (!removed) return report_error(removed.error(), err);
  out << "removed " << removed->name() << " " << removed->version() << " (installed "
      << removed->installed() << " from " << removed->source() << ")\n";
  return kExitOk;
}

int kb_paths(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage kb paths [options]\n\nShows where packs, hardware specs and patterns are "
      "looked for, in order.\n\nOptions");
  std::string config;
  opts.add_options()("help,h", "show this help")("config", po::value(&config),
                                                 "YAML config with pack paths");
  po::variables_map vm;
  if (auto stop = parse_command_line("kb paths", args, opts, {}, vm, out, err)) return *stop;
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  const auto& r = ctx->resources;
  out << "knowledge bases: " << (r.kb_root.empty() ? "(none found)" : r.kb_root.string())
      << (r.how.empty() ? "" : "  (" + r.how + ")") << "\n";
  std::vector<app::LoadMessage> msgs;
  auto sel = app::compose_selection(ctx->config, r, {}, msgs);
  out << "pack search paths, in order:\n";
  for (const auto& p : sel.paths)
    out << "  " << p.source << (p.trusted ? " (in-process)" : " (isolated)") << "  "
        << p.path.string() << "\n";
  out << "user pack folder (kb install): " << r.user_packs.string() << "\n";
  out << "system pack folder: " << r.system_packs.string() << "\n";
  out << "hardware specs: " << r.hardware_dir().string() << "\n";
  out << "fusion patterns: " << r.patterns_dir().string() << "\n";
  for (const auto& p : ctx->config.kb_paths)
    out << "  and from kb.paths: " << (p.path / "hardware").string() << ", "
        << (p.path / "patterns").string() << " (when present)\n";
  return kExitOk;
}

}  // namespace perfsage::cli

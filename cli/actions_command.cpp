// perfsage actions plan|apply|rollback|list|audit|verify: parses and renders; the work is
// app/actions_service.h.
#include <boost/program_options.hpp>
#include <sstream>

#include "app/actions_service.h"
#include "app/report.h"
#include "app/store_types.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output.h"
#include "cli/run_target.h"

namespace po = boost::program_options;

namespace perfsage::cli {
namespace {
namespace v1 = perfsage::v1;

constexpr const char* kUsage =
    "usage: perfsage actions <subcommand> --store FILE [options]\n\n"
    "subcommands:\n"
    "  plan RUN|PATH      plan the actions a run's findings propose (PATH: the stored run of\n"
    "                     those inputs, analysed first when there is none)\n"
    "  apply ID...        write a planned action's files (--out DIR, --allow-inexact)\n"
    "  rollback APPLY_ID  remove exactly what an apply wrote\n"
    "  list               planned actions, applies and verdicts (--run RUN)\n"
    "  audit              the audit trail: who, when, which findings, which files (sha256)\n"
    "  verify             judge applied actions on the next run of their job\n\n"
    "Run 'perfsage actions <subcommand> --help' for its options.\n";

std::string short_sha(const std::string& sha) {
  return sha.substr(0, 12);
}

void render_plan(std::ostream& os, const v1::PlannedAction& p) {
  os << "#" << p.id() << " " << p.summary() << "\n";
  for (const auto& s : p.steps()) os << "    finding " << s.finding() << ": " << s.title() << "\n";
  for (const auto& n : p.notes()) os << "    - " << n << "\n";
  for (const auto& f : p.files()) {
    os << "    writes " << f.path() << " (" << f.bytes() << " bytes"
       << (f.sha256().empty() ? "" : ", sha256 " + short_sha(f.sha256())) << ")\n";
  }
  for (const auto& u : p.usage()) os << "    then: " << u << "\n";
}

void render_apply(std::ostream& os, const v1::ActionApply& a) {
  os << "apply " << a.id() << " of plan #" << a.plan_id()
     << (a.already_applied() ? ": already applied, nothing written" : "") << " (" << a.out_dir()
     << ")\n";
  for (const auto& f : a.files()) {
    os << "    " << f.path() << "  " << f.bytes() << " bytes  sha256 " << f.sha256() << "\n";
  }
  for (const auto& n : a.notes()) os << "    - " << n << "\n";
  for (const auto& u : a.usage()) os << "    then: " << u << "\n";
}

void render_verdict(std::ostream& os, const v1::ActionVerdict& v) {
  os << "apply " << v.apply_id() << ", finding " << v.finding() << " (run " << v.before_run()
     << " -> " << v.after_run() << "): " << v.verdict() << "\n    " << v.detail() << "\n";
}

struct Common {
  std::string store, format = "text", output;
};

void add_common(po::options_description& opts, Common& c) {
  opts.add_options()("help,h", "show this help")("store", po::value(&c.store)->required(),
                                                 "the SQLite store holding runs and actions")(
      "format", po::value(&c.format), "text | json")("output,o", po::value(&c.output),
                                                     "write to this file instead of stdout");
}

void check_format(const Common& c) {
  if (c.format != "text" && c.format != "json") throw po::error("--format must be text or json");
}

int emit(const Common& c, const std::string& json, const std::string& text, std::ostream& out,
         std::ostream& err) {
  return write_output(c.output, c.format == "json" ? json : text, out, err) ? kExitOk : kExitInput;
}

// Opens the store; errors become exit codes.
template <class Body>
int with_store(const std::string& path, std::ostream& err, Body&& body) {
  try {
    app::Database db(path);
    return body(db);
  } catch (const std::exception& e) {
    return report_error({app::ErrorKind::store, e.what()}, err);
  }
}

// The options of list, audit and verify: the common ones and, with `run_help`, --run RUN.
std::optional<int> parse_listing(const char* command, const char* synopsis, const Args& args,
                                 Common& c, const char* run_help, std::optional<int64_t>& run,
                                 std::ostream& out, std::ostream& err) {
  po::options_description opts(std::string(synopsis) + "\n\nOptions");
  int64_t run_id = 0;
  add_common(opts, c);
  if (run_help) opts.add_options()("run", po::value(&run_id), run_help);
  po::variables_map vm;
  auto stop = parse_command_line(command, args, opts, {}, vm, out, err, [&] { check_format(c); });
  if (run_id > 0) run = run_id;
  return stop;
}

int plan(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage actions plan RUN|PATH --store FILE [options]\n\nOptions");
  Common c;
  std::string target, config;
  std::vector<std::string> only, kb;
  add_common(opts, c);
  opts.add_options()("finding", po::value(&only)->composing(),
                     "plan only for this finding id (repeatable)")(
      "config", po::value(&config), "YAML config, for analysing PATH")(
      "kb", po::value(&kb)->composing(), "packs to evaluate when analysing PATH")(
      "target", po::value(&target), "run id or input path");
  po::positional_options_description pos;
  pos.add("target", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("actions plan", args, opts, pos, vm, out, err, [&] {
        check_format(c);
        if (target.empty()) throw po::error("give a run id or an input path");
      })) {
    return *stop;
  }
  return with_store(c.store, err, [&](app::Database& db) {
    auto actor = app::default_actor();
    auto run = RunResolver(config, kb, err).resolve(db, target);
    if (!run) return report_error(run.error(), err);
    auto planned = app::plan_run_actions(db, *run, only, actor);
    if (!planned) return report_error(planned.error(), err);
    v1::ActionList list;
    for (const auto& p : planned->plans) *list.add_plans() = p;
    std::ostringstream text;
    text << "run " << planned->run_id << ": " << planned->plans.size() << " planned action"
         << (planned->plans.size() == 1 ? "" : "s") << "\n";
    for (const auto& n : planned->notes) text << "  - " << n << "\n";
    for (const auto& p : planned->plans) render_plan(text, p);
    if (!planned->plans.empty()) {
      text << "apply one with: perfsage actions apply ID --store " << c.store
           << " [--out DIR] [--allow-inexact]\n";
    }
    return emit(c, app::to_json(list), text.str(), out, err);
  });
}

int apply(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage actions apply ID... --store FILE [options]\n\nOptions");
  Common c;
  std::string out_dir;
  std::vector<std::string> ids;
  add_common(opts, c);
  opts.add_options()("out", po::value(&out_dir),
                     "output folder (default: perfsage-actions/plan-ID beside the store)")(
      "allow-inexact", "also apply rewrites that change the model's outputs")(
      "id", po::value(&ids)->composing(), "planned action ids");
  po::positional_options_description pos;
  pos.add("id", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("actions apply", args, opts, pos, vm, out, err, [&] {
        check_format(c);
        if (ids.empty()) throw po::error("give the id of a planned action");
        for (const auto& id : ids) {
          if (!parse_id(id)) throw po::error("'" + id + "' is not an action id");
        }
        if (ids.size() > 1 && !out_dir.empty()) {
          throw po::error("--out takes one action at a time (each writes its own files)");
        }
      })) {
    return *stop;
  }
  return with_store(c.store, err, [&](app::Database& db) {
    auto actor = app::default_actor();
    v1::ActionList list;
    std::ostringstream text;
    for (const auto& id : ids) {
      auto applied = app::apply_planned_action(db, *parse_id(id),
                                               {out_dir, vm.count("allow-inexact") > 0}, actor);
      if (!applied) return report_error(applied.error(), err);
      render_apply(text, *applied);
      *list.add_applies() = *applied;
    }
    return emit(c, app::to_json(list), text.str(), out, err);
  });
}

int rollback(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage actions rollback APPLY_ID --store FILE\n\nOptions");
  Common c;
  std::string id;
  add_common(opts, c);
  opts.add_options()("apply", po::value(&id), "the apply to undo");
  po::positional_options_description pos;
  pos.add("apply", 1);
  po::variables_map vm;
  if (auto stop = parse_command_line("actions rollback", args, opts, pos, vm, out, err, [&] {
        check_format(c);
        if (!parse_id(id)) throw po::error("give the id of an apply (see 'perfsage actions list')");
      })) {
    return *stop;
  }
  return with_store(c.store, err, [&](app::Database& db) {
    auto rolled = app::roll_back_action(db, *parse_id(id), app::default_actor());
    if (!rolled) return report_error(rolled.error(), err);
    std::ostringstream text;
    text << "rolled back apply " << rolled->id() << " of plan #" << rolled->plan_id() << "\n";
    for (const auto& n : rolled->notes()) text << "    - " << n << "\n";
    return emit(c, app::to_json(*rolled), text.str(), out, err);
  });
}

int list(const Args& args, std::ostream& out, std::ostream& err) {
  Common c;
  std::optional<int64_t> run;
  if (auto stop = parse_listing("actions list", "perfsage actions list --store FILE [--run RUN]",
                                args, c, "only the actions planned for this run", run, out, err)) {
    return *stop;
  }
  return with_store(c.store, err, [&](app::Database& db) {
    auto listed = app::list_planned_actions(db, run);
    if (!listed) return report_error(listed.error(), err);
    std::ostringstream text;
    for (const auto& p : listed->plans()) {
      text << "#" << p.id() << " run " << p.run_id() << " (" << p.job() << ") " << p.summary()
           << "\n";
      for (const auto& a : listed->applies()) {
        if (a.plan_id() != p.id()) continue;
        text << "    apply " << a.id() << " " << a.applied() << " by " << a.actor() << " into "
             << a.out_dir() << (a.rolled_back().empty() ? "" : ", rolled back " + a.rolled_back())
             << "\n";
        for (const auto& v : listed->verdicts()) {
          if (v.apply_id() == a.id()) {
            text << "      finding " << v.finding() << ": " << v.verdict() << " (" << v.detail()
                 << ")\n";
          }
        }
      }
    }
    if (listed->plans().empty()) text << "no planned actions\n";
    return emit(c, app::to_json(*listed), text.str(), out, err);
  });
}

int audit(const Args& args, std::ostream& out, std::ostream& err) {
  Common c;
  std::optional<int64_t> run;
  if (auto stop = parse_listing("actions audit", "perfsage actions audit --store FILE", args, c,
                                nullptr, run, out, err)) {
    return *stop;
  }
  return with_store(c.store, err, [&](app::Database& db) {
    auto trail = app::action_audit(db);
    if (!trail) return report_error(trail.error(), err);
    std::ostringstream text;
    for (const auto& e : trail->entries()) {
      text << e.at() << "  " << e.actor() << "  " << e.event();
      if (e.plan_id()) text << "  plan #" << e.plan_id();
      if (e.apply_id()) text << "  apply " << e.apply_id();
      text << "\n    " << e.detail() << "\n";
      if (e.findings_size() > 0) {
        text << "    findings:";
        for (const auto& f : e.findings()) text << " " << f;
        text << "\n";
      }
      for (const auto& f : e.files()) text << "    " << f.sha256() << "  " << f.path() << "\n";
    }
    if (trail->entries().empty()) text << "no actions recorded\n";
    return emit(c, app::to_json(*trail), text.str(), out, err);
  });
}

int verify(const Args& args, std::ostream& out, std::ostream& err) {
  Common c;
  std::optional<int64_t> run;
  if (auto stop =
          parse_listing("actions verify", "perfsage actions verify --store FILE [--run RUN]", args,
                        c, "only the applies this run judges", run, out, err)) {
    return *stop;
  }
  return with_store(c.store, err, [&](app::Database& db) {
    auto verdicts = app::verify_applied_actions(db, app::default_actor(), run);
    if (!verdicts) return report_error(verdicts.error(), err);
    v1::ActionList list;
    std::ostringstream text;
    for (const auto& v : *verdicts) {
      render_verdict(text, v);
      *list.add_verdicts() = v;
    }
    if (verdicts->empty()) text << "no applied action has a later run of its job yet\n";
    return emit(c, app::to_json(list), text.str(), out, err);
  });
}

struct Subcommand {
  const char* name;
  int (*run)(const Args&, std::ostream&, std::ostream&);
};

const Subcommand kSubcommands[] = {{"plan", plan}, {"apply", apply}, {"rollback", rollback},
                                   {"list", list}, {"audit", audit}, {"verify", verify}};

}  // namespace

std::vector<std::string> actions_subcommands() {
  std::vector<std::string> names;
  for (const auto& s : kSubcommands) names.push_back(s.name);
  return names;
}

int run_actions(const Args& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    (args.empty() ? err : out) << kUsage;
    return args.empty() ? kExitUsage : kExitOk;
  }
  Args rest(args.begin() + 1, args.end());
  for (const auto& s : kSubcommands)
    if (args[0] == s.name) return s.run(rest, out, err);
  if (args[0] == "log") return audit(rest, out, err);  // audit's former name
  const std::string& sub = args[0];
  err << "perfsage actions: unknown subcommand '" << sub << "'\n" << kUsage;
  return kExitUsage;
}

}  // namespace perfsage::cli

#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>
#include <optional>

#include "app/front_end_names.h"
#include "app/report.h"
#include "app/report_html.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/gate.h"
#include "cli/output.h"
#include "cli/progress.h"
#include "cli/render_text.h"

namespace po = boost::program_options;

namespace perfsage::cli {

int run_analyze(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage analyze PATH... [options]\n\n"
      "Collects profiling dumps and model graphs into one run, analyses it, evaluates the\n"
      "selected knowledge-base packs and prints the ranked findings.\n\n"
      "Exit codes: 0 done (whatever was found), 1 an input cannot be read or no input was\n"
      "recognised (unless --lenient), 2 bad usage, 3 --fail-on: a finding at or above the\n"
      "severity, 4 --fail-on: a pack failed or ran out of budget, or (--lenient) no input was\n"
      "recognised, 5 the store cannot be used, 70 internal error.\n\n"
      "Options");
  std::vector<std::string> inputs, kbs;
  std::string store_path, format = "text", job, config, fail_on, output;
  std::string fail_help = std::string("exit 3 when a finding of this severity or worse exists: ") +
                          severity_names() + "; exit 4 when a pack fails or nothing is recognised";
  opts.add_options()("help,h", "show this help")(
      "kb", po::value(&kbs)->composing(),
      "only these packs: name, glob or pack folder (repeatable)")(
      "config", po::value(&config), "YAML config: pack paths and selection, params, limits")(
      "store", po::value(&store_path), "keep the fact store in this SQLite file")(
      "job", po::value(&job), "job name (default: the first input's name)")(
      "format", po::value(&format), "report format: text | json | html (one self-contained file)")(
      "output,o", po::value(&output), "write the report to this file instead of stdout")(
      "fail-on", po::value(&fail_on), fail_help.c_str())(
      "lenient",
      "skip malformed records and report counts instead of failing; a run in which nothing is "
      "recognised exits 0")("quiet,q", "no progress line on stderr")(
      "verbose,v", "log the time of every stage, analyzer, fact query and pack to stderr")(
      "input", po::value(&inputs)->composing(), "input files or directories");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  auto threshold = perfsage::v1::SEVERITY_UNSPECIFIED;
  if (auto stop = parse_command_line("analyze", args, opts, pos, vm, out, err, [&] {
        if (vm.count("verbose")) spdlog::set_level(spdlog::level::debug);
        if (inputs.empty()) throw po::error("no input given");
        if (format != "text" && format != "json" && format != "html")
          throw po::error("--format must be text, json or html");
        if (!fail_on.empty()) {
          threshold = app::parse_severity(fail_on);
          if (threshold == perfsage::v1::SEVERITY_UNSPECIFIED)
            throw po::error("--fail-on: '" + fail_on + "' is not a severity; use one of " +
                            severity_names());
        }
      })) {
    return *stop;
  }

  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  // Packs are loaded before any input is read so a broken selection fails fast; with a
  // temporary store, which nothing outlives, they compile while the inputs are stored and
  // analysed, and a failed load is still the outcome (app::KnowledgeInFlight).
  std::optional<app::KnowledgeInFlight> in_flight;
  std::shared_ptr<const app::Knowledge> loaded;
  if (store_path.empty()) {
    in_flight.emplace(ctx->config, ctx->resources, app::KnowledgeRequest{kbs},
                      [&](const app::Knowledge& kn) { print_load_messages(kn, err); });
  } else {
    auto knowledge = load_knowledge(*ctx, kbs, err);
    if (!knowledge) return report_error(knowledge.error(), err);
    loaded = std::move(*knowledge);
  }
  // The load's own error (or what it threw) comes before the store's or the analysis's.
  auto knowledge_failure = [&]() -> std::optional<app::Error> {
    if (!in_flight) return std::nullopt;
    const auto& k = in_flight->wait();
    return k ? std::nullopt : std::optional<app::Error>(k.error());
  };

  app::AnalysisRequest req;
  req.inputs.assign(inputs.begin(), inputs.end());
  req.job = job;
  req.mode = vm.count("lenient") ? app::InputMode::lenient : app::InputMode::strict;
  app::Result<app::AnalysisOutcome> outcome = app::Error{};
  std::string html;
  try {
    ProgressLine progress(!vm.count("quiet") && !vm.count("verbose") &&
                          ProgressLine::stderr_is_terminal());
    req.progress = progress.callback();
    // The line shows nothing before the packs' messages are out.
    if (in_flight && req.progress)
      req.progress = [&, show = req.progress](std::string_view stage, double fraction) {
        if (in_flight->loaded()) show(stage, fraction);
      };
    app::StoreHandle store(store_path);
    outcome = in_flight ? app::analyze(store.db(), req, *in_flight, ctx->config.limits)
                        : app::analyze(store.db(), req, *loaded, ctx->config.limits);
    if (outcome && format == "html") {  // charts are read from the store while it is open
      auto page = app::render_run_html(store.db(), outcome->run_id);
      if (!page) return report_error(page.error(), err);
      html = std::move(*page);
    }
  } catch (const std::exception& e) {  // the store could not be opened
    if (auto failed = knowledge_failure()) return report_error(*failed, err);
    return report_error({app::ErrorKind::store, e.what()}, err);
  }
  if (auto failed = knowledge_failure()) return report_error(*failed, err);
  if (!outcome) return report_error(outcome.error(), err);
  for (const auto& n : outcome->notices) err << "perfsage: " << n << "\n";
  const auto& report = outcome->report;
  if (!write_output(output,
                    format == "json"   ? app::to_json(report)
                    : format == "html" ? html
                                       : render_text(report),
                    out, err))
    return kExitInput;
  // Nothing recognised is no clean run: strict mode says so with exit 1, as for a named file
  // no collector reads; --lenient accepts it (and --fail-on's gate then trips, exit 4).
  if (outcome->nothing_recognised && !vm.count("lenient")) return kExitInput;
  return fail_on.empty() ? kExitOk : apply_fail_on(report, threshold, err);
}

}  // namespace perfsage::cli

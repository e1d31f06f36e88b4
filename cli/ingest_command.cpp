#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>

#include "app/front_end_names.h"
#include "app/report.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output.h"
#include "cli/render_text.h"

namespace po = boost::program_options;

namespace perfsage::cli {

int run_ingest(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage ingest PATH... --store FILE [options]\n\n"
      "Collects inputs into a store and runs the analyzers, without evaluating packs.\n\n"
      "Options");
  std::vector<std::string> inputs;
  std::string store_path, format = "text", job, config, output;
  opts.add_options()("help,h", "show this help")("store", po::value(&store_path)->required(),
                                                 "SQLite store to collect into (kept)")(
      "job", po::value(&job), "job name (default: the first input's name)")(
      "config", po::value(&config), "YAML config (kb.paths reach hardware specs and patterns)")(
      "format", po::value(&format), "summary format: text | json")(
      "output,o", po::value(&output), "write the summary to this file instead of stdout")(
      "lenient", "skip malformed records and report counts instead of failing")(
      "verbose,v", "log the time of every stage, analyzer, fact query and pack to stderr")(
      "input", po::value(&inputs)->composing(), "input files or directories");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("ingest", args, opts, pos, vm, out, err, [&] {
        if (vm.count("verbose")) spdlog::set_level(spdlog::level::debug);
        if (inputs.empty()) throw po::error("no input given");
        if (format != "text" && format != "json") throw po::error("--format must be text or json");
      })) {
    return *stop;
  }
  auto ctx = load_context(config, err);
  if (!ctx) return report_error(ctx.error(), err);
  auto knowledge = load_knowledge(*ctx, {}, err);
  if (!knowledge) return report_error(knowledge.error(), err);
  app::AnalysisRequest req;
  req.inputs.assign(inputs.begin(), inputs.end());
  req.job = job;
  req.mode = vm.count("lenient") ? app::InputMode::lenient : app::InputMode::strict;
  req.evaluate_packs = false;
  app::Result<app::AnalysisOutcome> outcome = app::Error{};
  try {
    app::StoreHandle store(store_path);
    outcome = app::analyze(store.db(), req, **knowledge, ctx->config.limits);
  } catch (const std::exception& e) {
    return report_error({app::ErrorKind::store, e.what()}, err);
  }
  if (!outcome) return report_error(outcome.error(), err);
  for (const auto& n : outcome->notices) err << "perfsage: " << n << "\n";
  perfsage::v1::IngestReport report;
  *report.mutable_run() = outcome->report.run();
  *report.mutable_ingest() = outcome->report.ingest();
  if (!write_output(output,
                    format == "json" ? app::to_json(report) : render_ingest_text(outcome->report),
                    out, err))
    return kExitInput;
  // As analyze: nothing recognised is no clean ingest unless --lenient accepts it.
  return outcome->nothing_recognised && !vm.count("lenient") ? kExitInput : kExitOk;
}

}  // namespace perfsage::cli

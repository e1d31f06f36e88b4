#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/evaluate.h"
#include "cli/pipeline.h"
#include "cli/report.h"
#include "collectors/common/collector.h"

namespace po = boost::program_options;

namespace perfsage::cli {

int run_analyze(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage analyze PATH... [options]");
  std::vector<std::string> inputs, kbs;
  std::string store_path, format = "text", job, config, fail_on;
  opts.add_options()("help,h", "show this help")("kb", po::value(&kbs)->composing(),
                                                 "only these packs (name or glob; repeatable)")(
      "config", po::value(&config), "YAML config: pack paths, enable/disable, params")(
      "store", po::value(&store_path), "keep the fact store in this SQLite file")(
      "job", po::value(&job), "job name (default: the first input's name)")(
      "format", po::value(&format), "report format: text | json")(
      "fail-on", po::value(&fail_on), "exit 3 when a finding of this severity or worse exists")(
      "lenient", "skip malformed records and report counts instead of failing")(
      "verbose,v", "log the time of every stage, analyzer, fact query and pack to stderr")(
      "input", po::value(&inputs)->composing(), "input files or directories");
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("analyze", args, opts, pos, vm, out, err, [&] {
        if (vm.count("verbose")) spdlog::set_level(spdlog::level::debug);
        if (inputs.empty()) throw po::error("no input given");
        if (format != "text" && format != "json") throw po::error("--format must be text or json");
        if (!fail_on.empty() && severity_rank(fail_on) < 0) {
          throw po::error("--fail-on must be one of critical, high, medium, low, info");
        }
      })) {
    return *stop;
  }

  KbRequest kb_req{kbs, config};
  // Packs are loaded before any input is read so a broken selection fails fast.
  auto packs = load_packs(kb_req, err);
  if (!packs) return kExitUsage;

  perfsage::v1::AnalysisReport report;
  try {
    StoreHandle store(store_path);
    IngestRequest req;
    req.inputs.assign(inputs.begin(), inputs.end());
    req.job = job;
    req.mode = vm.count("lenient") ? collectors::Mode::lenient : collectors::Mode::strict;
    auto outcome = ingest_and_analyze(store.db(), req, system_clock_iso8601);
    if (outcome.reused) {
      err << "perfsage: these inputs are already stored as run " << outcome.run_id
          << "; analysing the stored run\n";
    }
    evaluate_and_store(store.db(), outcome.run_id, *packs);
    report = build_report(store.db(), outcome.run_id);
  } catch (const std::exception& e) {  // ParseError and StoreError: the input can't be read
    err << "perfsage: " << e.what() << "\n";
    return kExitInput;
  }
  out << (format == "json" ? to_json(report) : render_text(report));
  if (!fail_on.empty()) {
    for (const auto& r : report.recommendations()) {
      if (severity_rank(r.severity()) >= severity_rank(fail_on)) return kExitFailOn;
    }
  }
  return kExitOk;
}

}  // namespace perfsage::cli

#include <spdlog/spdlog.h>

#include <boost/program_options.hpp>

#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/pipeline.h"
#include "cli/report.h"
#include "collectors/common/collector.h"
#include "store/run_registry.h"

namespace po = boost::program_options;

namespace perfsage::cli {

int run_ingest(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts("perfsage ingest PATH... --store FILE [options]");
  std::vector<std::string> inputs;
  std::string store_path, format = "text", job;
  opts.add_options()("help,h", "show this help")("store", po::value(&store_path)->required(),
                                                 "SQLite store to collect into (kept)")(
      "job", po::value(&job), "job name (default: the first input's name)")(
      "format", po::value(&format), "summary format: text | json")(
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
  try {
    StoreHandle store(store_path);
    IngestRequest req;
    req.inputs.assign(inputs.begin(), inputs.end());
    req.job = job;
    req.mode = vm.count("lenient") ? collectors::Mode::lenient : collectors::Mode::strict;
    auto outcome = ingest_and_analyze(store.db(), req, system_clock_iso8601);
    perfsage::v1::IngestReport report;
    auto full = build_report(store.db(), outcome.run_id);
    *report.mutable_run() = full.run();
    *report.mutable_ingest() = full.ingest();
    if (outcome.reused) {
      err << "perfsage: these inputs are already stored as run " << outcome.run_id << "\n";
    }
    out << (format == "json" ? to_json(report) : render_ingest_text(report));
    return kExitOk;
  } catch (const std::exception& e) {  // ParseError and StoreError: the input can't be read
    err << "perfsage: " << e.what() << "\n";
    return kExitInput;
  }
}

}  // namespace perfsage::cli

// perfsage compare RUN_A RUN_B: parses and renders; the comparison is app/run_comparison.h.
#include <boost/program_options.hpp>

#include "app/compare_html.h"
#include "app/report.h"
#include "app/run_comparison.h"
#include "cli/command_line.h"
#include "cli/commands.h"
#include "cli/context.h"
#include "cli/output.h"
#include "cli/render_compare.h"
#include "cli/run_target.h"

namespace po = boost::program_options;

namespace perfsage::cli {

int run_compare(const Args& args, std::ostream& out, std::ostream& err) {
  po::options_description opts(
      "perfsage compare RUN_A RUN_B [options]\n\n"
      "Compares two runs: step time and its breakdown (per rank when a run has several), the\n"
      "ops, kernels, CPU ops, GPU copies (by copy kind) and CUDA runtime calls whose time\n"
      "changed most, and the findings that appeared, disappeared or changed (B - A). A run is\n"
      "a run id in --store, or an input path: the stored run of those inputs, analysed first\n"
      "when the store has none (without --store, in a temporary store).\n\n"
      "Options");
  std::vector<std::string> runs, kbs;
  std::string store_path, format = "text", config, output, sort = "step";
  int top = 10;
  opts.add_options()("help,h", "show this help")("store", po::value(&store_path),
                                                 "the SQLite store holding the runs")(
      "format", po::value(&format), "text | json | html (one self-contained file)")(
      "output,o", po::value(&output), "write to this file instead of stdout")(
      "top", po::value(&top),
      "changes shown per kind: ops, kernels, CPU ops, copies, runtime calls (default 10)")(
      "sort", po::value(&sort),
      "step: by the change per step and rank (total when a run has no steps) | total")(
      "config", po::value(&config), "YAML config, for analysing an input path")(
      "kb", po::value(&kbs)->composing(), "packs to evaluate when analysing an input path")(
      "run", po::value(&runs)->composing(), "the two runs");
  po::positional_options_description pos;
  pos.add("run", -1);
  po::variables_map vm;
  if (auto stop = parse_command_line("compare", args, opts, pos, vm, out, err, [&] {
        if (runs.size() != 2) throw po::error("give two runs: RUN_A RUN_B (ids or input paths)");
        if (format != "text" && format != "json" && format != "html")
          throw po::error("--format must be text, json or html");
        if (sort != "step" && sort != "total") throw po::error("--sort must be step or total");
        if (top < 1) throw po::error("--top must be at least 1");
        if (store_path.empty()) {
          for (const auto& r : runs) {
            if (parse_id(r)) throw po::error("run id " + r + " needs --store FILE");
          }
        }
      })) {
    return *stop;
  }
  app::Result<perfsage::v1::RunComparison> compared = app::Error{};
  try {
    app::StoreHandle store(store_path);
    RunResolver resolver(config, kbs, err);
    auto a = resolver.resolve(store.db(), runs[0]);
    if (!a) return report_error(a.error(), err);
    auto b = resolver.resolve(store.db(), runs[1]);
    if (!b) return report_error(b.error(), err);
    compared = app::compare_runs(
        store.db(), *a, *b, {top, sort == "total" ? app::OpOrder::total : app::OpOrder::per_step});
  } catch (const std::exception& e) {  // the store could not be opened
    return report_error({app::ErrorKind::store, e.what()}, err);
  }
  if (!compared) return report_error(compared.error(), err);
  const std::string text = format == "json"   ? app::to_json(*compared)
                           : format == "html" ? app::render_compare_html(*compared)
                                              : render_compare_text(*compared);
  return write_output(output, text, out, err) ? kExitOk : kExitInput;
}

}  // namespace perfsage::cli

#include "cli/command_line.h"

namespace po = boost::program_options;

namespace perfsage::cli {

std::optional<int> parse_command_line(const char* command, const Args& args,
                                      const po::options_description& opts,
                                      const po::positional_options_description& pos,
                                      po::variables_map& vm, std::ostream& out, std::ostream& err,
                                      const std::function<void()>& check) {
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    if (vm.count("help")) {
      out << opts;
      return kExitOk;
    }
    po::notify(vm);
    if (check) check();
  } catch (const po::error& e) {
    // The reason alone: the whole option list would bury it (--help prints that).
    err << "perfsage " << command << ": " << e.what() << " (perfsage " << command
        << " --help lists the options)\n";
    return kExitUsage;
  }
  return std::nullopt;
}

}  // namespace perfsage::cli

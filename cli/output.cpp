#include "cli/output.h"

#include "app/front_end_names.h"

namespace perfsage::cli {

bool write_output(const std::string& path, const std::string& text, std::ostream& out,
                  std::ostream& err) {
  if (path.empty() || path == "-") {
    out << text;
    return true;
  }
  try {
    app::write_user_file(path, text);  // temp file, fsync, rename; devices written through
    return true;
  } catch (const std::exception& e) {
    err << "perfsage: " << e.what() << "\n";
    return false;
  }
}

}  // namespace perfsage::cli

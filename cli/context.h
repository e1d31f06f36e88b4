// What every command that evaluates packs needs first: the config file, the resources and the
// knowledge loaded from them, with errors printed and mapped to exit codes.
#pragma once

#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "app/analysis.h"
#include "app/config.h"
#include "app/knowledge.h"
#include "app/resources.h"

namespace perfsage::cli {

int exit_code(app::ErrorKind kind);
// Prints "perfsage: <message>" and returns the exit code of the error's kind.
int report_error(const app::Error& error, std::ostream& err);

struct Context {
  app::AppConfig config;
  app::Resources resources;
};

// Reads the config (when a path is given) and locates resources; load warnings go to `err`.
app::Result<Context> load_context(const std::string& config_path, std::ostream& err);

// Loads the knowledge for a context and a --kb selection; warnings and pack errors to `err`.
app::Result<std::shared_ptr<const app::Knowledge>> load_knowledge(
    const Context& ctx, const std::vector<std::string>& only, std::ostream& err);

// What was said while loading the knowledge (warnings, pack errors), one line each.
void print_load_messages(const app::Knowledge& knowledge, std::ostream& err);

}  // namespace perfsage::cli

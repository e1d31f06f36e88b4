#include "cli/context.h"

#include "cli/commands.h"

namespace perfsage::cli {

int exit_code(app::ErrorKind kind) {
  switch (kind) {
    case app::ErrorKind::usage:
      return kExitUsage;
    case app::ErrorKind::input:
      return kExitInput;
    case app::ErrorKind::store:
    case app::ErrorKind::store_damaged:
      return kExitStore;
    case app::ErrorKind::pack:
      return kExitPack;
    case app::ErrorKind::internal:
      return kExitInternal;
  }
  return kExitInternal;
}

int report_error(const app::Error& error, std::ostream& err) {
  err << "perfsage: " << (error.kind == app::ErrorKind::internal ? "internal error: " : "")
      << error.message << "\n";
  return exit_code(error.kind);
}

app::Result<Context> load_context(const std::string& config_path, std::ostream& err) {
  Context ctx;
  if (!config_path.empty()) {
    auto loaded = app::read_config_file(config_path);
    if (!loaded) return loaded.error();
    for (const auto& m : loaded->messages) err << m.str() << "\n";
    ctx.config = std::move(loaded->config);
  }
  ctx.resources = app::locate_resources(app::ResourceHints::from_environment());
  if (ctx.resources.kb_root.empty())
    err << "perfsage: warning: no built-in knowledge bases found (set PERFSAGE_KB_PATH)\n";
  return ctx;
}

app::Result<std::shared_ptr<const app::Knowledge>> load_knowledge(
    const Context& ctx, const std::vector<std::string>& only, std::ostream& err) {
  auto kn = app::load_knowledge(ctx.config, ctx.resources, {only});
  if (!kn) return kn.error();
  print_load_messages(**kn, err);
  return kn;
}

void print_load_messages(const app::Knowledge& knowledge, std::ostream& err) {
  for (const auto& m : knowledge.messages) err << m.str() << "\n";
}

}  // namespace perfsage::cli

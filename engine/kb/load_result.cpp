#include "engine/kb/load_result.h"

#include <array>

namespace perfsage::engine {
namespace {

struct CodeInfo {
  LoadCode code;
  const char* name;
  const char* description;
};

constexpr std::array kCodes = {
    CodeInfo{LoadCode::err_file_read, "LOAD_ERR_FILE_READ",
             "The pack file could not be read; the pack is not loaded."},
    CodeInfo{LoadCode::err_yaml_parse, "LOAD_ERR_YAML_PARSE",
             "The file is not valid YAML; the pack is not loaded."},
    CodeInfo{LoadCode::err_yaml_validate, "LOAD_ERR_YAML_VALIDATE",
             "A key has the wrong type or value, or a required key is missing; the pack is not "
             "loaded."},
    CodeInfo{LoadCode::err_compile_condition, "LOAD_ERR_COMPILE_CONDITION",
             "A rule's `when` does not compile (CLIPS syntax, a function outside the sandbox, an "
             "unknown fact type or slot); the pack is not loaded."},
    CodeInfo{LoadCode::err_compile_output, "LOAD_ERR_COMPILE_OUTPUT",
             "A rule's message, subjects, evidence, gain, share or action does not compile; the "
             "pack is not loaded."},
    CodeInfo{LoadCode::err_validate, "LOAD_ERR_VALIDATE",
             "The pack is inconsistent (version, engine range, duplicate or invalid override); "
             "the pack is not loaded."},
    CodeInfo{LoadCode::unknown_key, "LOAD_UNKNOWN_KEY",
             "A key is not part of the pack format and is ignored (kept for forward "
             "compatibility)."},
    CodeInfo{LoadCode::unused_param, "LOAD_UNUSED_PARAM", "A param is never referenced."},
    CodeInfo{LoadCode::unused_list, "LOAD_UNUSED_LIST", "A list is never referenced."},
    CodeInfo{LoadCode::unused_macro, "LOAD_UNUSED_MACRO", "A macro is never referenced."},
    CodeInfo{LoadCode::unknown_param_override, "LOAD_UNKNOWN_PARAM_OVERRIDE",
             "The configuration overrides a param the pack does not declare; the value is "
             "ignored."},
    CodeInfo{LoadCode::deprecated_pack, "LOAD_DEPRECATED_PACK",
             "The pack's maturity is `deprecated`; it still runs."},
    CodeInfo{LoadCode::shadowed_pack, "LOAD_PACK_SHADOWED",
             "A later search path defines a pack with the same name; its content is merged "
             "according to each rule's `override`."},
};
static_assert(kCodes.size() == static_cast<size_t>(LoadCode::shadowed_pack) + 1,
              "every LoadCode needs a name and a description");

const CodeInfo& info(LoadCode c) {
  return kCodes[static_cast<size_t>(c)];
}

}  // namespace

const char* code_name(LoadCode c) {
  return info(c).name;
}
const char* code_description(LoadCode c) {
  return info(c).description;
}
bool is_error(LoadCode c) {
  return static_cast<int>(c) <= static_cast<int>(LoadCode::err_validate);
}

std::string LoadMessage::str() const {
  // Messages about the selection itself (--kb, kb.packs) have no file of their own.
  std::string out = file.empty() ? std::string("selection") : file;
  if (line > 0) {
    // Appended piecewise: GCC 12 reports a false -Wrestrict for "literal" + std::string here.
    out += ':';
    out += std::to_string(line);
    if (column > 0) {
      out += ':';
      out += std::to_string(column);
    }
  }
  out += error() ? ": error " : ": warning ";
  out += code_name(code);
  out += ": ";
  if (!pack.empty() || !item.empty()) {
    out += "[" + pack;
    if (!item.empty()) out += (pack.empty() ? "" : " ") + item;
    out += "] ";
  }
  out += text;
  return out;
}

bool has_errors(const std::vector<LoadMessage>& messages) {
  for (const auto& m : messages)
    if (m.error()) return true;
  return false;
}

}  // namespace perfsage::engine

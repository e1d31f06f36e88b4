// Reads a pack folder (pack.yaml + tests/*.yaml) into the pack model. Structural problems
// are reported as LoadMessages with positions; unknown keys are warnings.
//
//   std::vector<LoadMessage> msgs;
//   std::optional<Pack> p = read_pack("knowledge_bases/builtin/aicpu", msgs);
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "engine/kb/load_result.h"
#include "engine/kb/pack.h"

namespace YAML {
class Node;
}

namespace perfsage::engine {

// Limits on what one pack may hold: packs are untrusted input, and reading or compiling an
// unbounded pack would take the host's time and memory before any budget applies.
constexpr size_t kMaxPackFileBytes = 512 * 1024;
constexpr size_t kMaxRules = 2000;
constexpr size_t kMaxListItems = 100000;  // all lists of a pack together

// Returns nullopt when the pack cannot be used (errors appended to `messages`).
std::optional<Pack> read_pack(const std::filesystem::path& dir, std::vector<LoadMessage>& messages);

// Reads pack.yaml text directly (file name only used in messages); for tests and tools.
std::optional<Pack> read_pack_text(const std::string& yaml_text, const std::string& file_name,
                                   std::vector<LoadMessage>& messages);

// Converts a YAML scalar to a Scalar (CLIPS literal + number). Used by tests and config.
Scalar scalar_from_yaml(const YAML::Node& node, const std::string& file);

// The engine version packs are checked against, and the range check ("">=0.1, <2").
const char* engine_version();
bool version_satisfies(const std::string& version, const std::string& range, std::string& why);
bool is_semver(const std::string& v);

}  // namespace perfsage::engine

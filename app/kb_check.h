// `perfsage kb validate` and `kb lint`: what is wrong with a pack folder, as load messages with
// codes and positions (Falco's -V). Validation is what loading would say (errors make the pack
// unusable); lint adds the authoring rules a reviewer checks (tests, evidence, a fix, a gain,
// references, documented params).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "engine/kb/load_result.h"
#include "perfsage/v1/kb.pb.h"

namespace perfsage::app {

struct PackCheck {
  std::filesystem::path dir;
  std::string pack, version;
  bool valid = false;
  std::vector<engine::LoadMessage> messages;
};

PackCheck validate_pack_dir(const std::filesystem::path& dir);
PackCheck lint_pack_dir(const std::filesystem::path& dir);

perfsage::v1::PackCheck to_proto(const PackCheck& check);

}  // namespace perfsage::app

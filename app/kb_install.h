// `perfsage kb install PATH|ARCHIVE` and `kb remove NAME`: community packs into the user's pack
// folder, only after they validate and pass their own tests (run the way they will run:
// untrusted, in a child process). An archive (.tar.gz, .tgz, .tar, .zip) is unpacked into a
// temporary folder first, taking regular files and folders only, with relative paths inside
// it and bounded size. The install records name, version, source, sha256 and time in
// .perfsage-install.json beside the pack; a pack that would replace another pack of the same
// name without its own `override:` is refused.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "app/config.h"
#include "app/knowledge.h"
#include "app/resources.h"
#include "app/result.h"
#include "engine/kb/pack_tests.h"
#include "perfsage/v1/kb.pb.h"

namespace perfsage::app {

constexpr const char* kInstallRecord = ".perfsage-install.json";
constexpr size_t kMaxArchiveBytes = 16u << 20;  // unpacked
constexpr size_t kMaxArchiveEntries = 2000;

struct InstallRequest {
  std::filesystem::path source;  // a pack folder or an archive holding one
  bool replace = false;          // replace an installed pack of the same name (upgrade)
  std::string now;               // ISO-8601 time to record
};

struct InstallOutcome {
  perfsage::v1::InstallRecord record;
  std::filesystem::path installed;  // the pack's folder under the user pack folder
  engine::TestReport tests;
  std::vector<engine::LoadMessage> messages;  // validation warnings
};

// `knowledge` gives the hardware specs and patterns the pack's fixtures are analysed with and
// the packs already known (for the name check). Errors: kind pack (invalid, failing tests, name
// taken) or usage (unreadable source, no user pack folder).
Result<InstallOutcome> install_pack(const InstallRequest& request, const Resources& resources,
                                    const AppConfig& config, const Knowledge& knowledge);

// Removes a pack installed by install_pack (it must carry the install record).
Result<perfsage::v1::InstallRecord> remove_pack(const std::string& name,
                                                const Resources& resources);

}  // namespace perfsage::app

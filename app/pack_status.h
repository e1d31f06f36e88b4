// The packs as the front ends list them, built in one place: every pack in the search paths
// (`perfsage kb list`, perfsage.v1.PackList) and the status of each pack a loaded Knowledge
// holds (what the daemon serves, perfsage.v1.PackStatus in GET /api/v1/packs).
#pragma once

#include <vector>

#include "app/config.h"
#include "app/front_end_names.h"
#include "app/knowledge.h"
#include "app/resources.h"
#include "perfsage/v1/api.pb.h"
#include "perfsage/v1/report.pb.h"

namespace perfsage::app {

// engine's types, named through app/ for the front ends.
using PackInfo = engine::PackInfo;

struct PackListing {
  std::vector<PackInfo> packs;  // selection by name and maturity not applied
  std::vector<LoadMessage> messages;
};

// Every pack in the search paths the config and resources give, valid or not.
PackListing list_packs(const AppConfig& config, const Resources& resources);

perfsage::v1::PackList pack_list(const std::vector<PackInfo>& packs);

// One status per pack of `knowledge` (valid ones "ok", invalid ones "error" with why), and
// one "error" for each pack file an error names that no pack of the set stands for (a pack
// name defined twice: the refused folder).
std::vector<perfsage::v1::PackStatus> pack_statuses(const Knowledge& knowledge);

// The statuses that are not "ok": packs that do not serve.
std::vector<perfsage::v1::PackStatus> broken_packs(
    const std::vector<perfsage::v1::PackStatus>& statuses);

}  // namespace perfsage::app

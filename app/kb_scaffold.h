// `perfsage kb new NAME`: a pack folder to start from — a header, one documented param, one rule
// with evidence, gain and a fix, and tests with a firing and a silent case — that passes
// `kb validate`, `kb lint` and `kb test` as written, so an author changes working code.
#pragma once

#include <filesystem>
#include <string>

#include "app/result.h"

namespace perfsage::app {

// Creates `parent`/NAME; refuses a name that is not [a-z][a-z0-9_-]* or a folder that exists.
Result<std::filesystem::path> scaffold_pack(const std::string& name,
                                            const std::filesystem::path& parent);

}  // namespace perfsage::app

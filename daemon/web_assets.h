// The page's files, embedded at build time: index.html and app.js (daemon/web/), run_view.js
// and report.css (app/web/, shared with the HTML report). Empty when unknown.
#pragma once

#include <string_view>

namespace perfsage::daemon {
std::string_view web_asset(std::string_view name);
}  // namespace perfsage::daemon

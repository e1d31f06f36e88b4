// A run as one self-contained HTML file (`perfsage analyze --format html`, and the daemon's
// "download as HTML"): the same run view as perfsaged's page — the script, the stylesheet and
// the run's data embedded, nothing fetched — so it opens offline.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "app/result.h"
#include "perfsage/v1/api.pb.h"
#include "store/database.h"

namespace perfsage::app {

std::string render_html(const perfsage::v1::RunDetail& detail);
Result<std::string> render_run_html(store::Database& db, int64_t run_id);

// Text and attribute values made safe for HTML (<, >, &, ").
std::string html_escape(const std::string& s);

// A page's start up to its open <style> element, with the report's stylesheet in it.
std::string html_head(const std::string& title);

// The page assets embedded at build time (app/web/): run_view.js, report.css.
std::string_view report_asset(std::string_view name);

}  // namespace perfsage::app

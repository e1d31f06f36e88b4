#include "daemon/web_assets.h"

#include "app/report_html.h"

namespace perfsage::daemon {

std::string_view page_asset(std::string_view name);  // generated: page_assets.cpp

std::string_view web_asset(std::string_view name) {
  auto page = page_asset(name);
  return page.empty() ? app::report_asset(name) : page;
}

}  // namespace perfsage::daemon

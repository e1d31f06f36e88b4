// Loading a page in headless Chromium (Debian's chromium, installed by scripts/setup) for the
// tests of the daemon's page and the HTML reports: the DOM after its scripts ran, and the
// browser's console lines.
#pragma once

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "test_support.h"

namespace perfsage::test {

inline std::filesystem::path chromium() {
  for (const char* p : {"/usr/bin/chromium", "/usr/bin/chromium-browser"}) {
    if (std::filesystem::exists(p)) return p;
  }
  return {};
}

struct Page {
  std::string dom, log;
};

// Loads `url` in a fresh headless Chromium; with `screenshot` set, saves a PNG instead of
// dumping the DOM. Virtual time lets the page's fetches finish before the dump.
inline Page load_page(const std::filesystem::path& work, const std::string& url,
                      const std::filesystem::path& screenshot = {}) {
  static int n = 0;
  auto profile = work / ("chromium-profile-" + std::to_string(n++));
  std::string cmd = chromium().string() +
                    " --headless --no-sandbox --disable-gpu --disable-background-networking"
                    " --disable-component-update --disable-sync --no-first-run"
                    " --user-data-dir=" +
                    profile.string() +
                    " --enable-logging=stderr --v=0 --virtual-time-budget=10000"
                    " --window-size=1280,2200 ";
  cmd += screenshot.empty() ? "--dump-dom " : "--screenshot=" + screenshot.string() + " ";
  cmd +=
      "'" + url + "' > " + (work / "dom.html").string() + " 2> " + (work / "chrome.log").string();
  int rc = std::system(("timeout 120 " + cmd).c_str());
  INFO(cmd);
  REQUIRE(rc == 0);
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  return {read(work / "dom.html"), read(work / "chrome.log")};
}

// Console output of the page (errors, uncaught exceptions, CSP violations): the pages log
// nothing themselves, so any line is a failure.
inline std::string console_lines(const std::string& log) {
  std::string out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);) {
    if (line.find(":CONSOLE") != std::string::npos) out += line + "\n";
  }
  return out;
}

}  // namespace perfsage::test

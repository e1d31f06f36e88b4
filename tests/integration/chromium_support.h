// Loading a page in headless Chromium (Debian's chromium, installed by `scripts/setup --test`)
// for the tests of the daemon's page and the HTML reports: the DOM after its scripts ran, the
// browser's console lines, and screenshots.
#pragma once

#include <sys/resource.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
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

// Skips the current test case, loudly, when Chromium is absent (the program then exits with
// kSkipReturnCode and ctest reports it skipped); where the shared samples are required (CI=true
// or PERFSAGE_REQUIRE_SHARED=1) the browser is too, and the case fails instead.
#define PERFSAGE_REQUIRE_CHROMIUM()                                                            \
  do {                                                                                         \
    if (perfsage::test::chromium().empty()) {                                                  \
      if (perfsage::test::samples_required())                                                  \
        FAIL(                                                                                  \
            "chromium is not installed (scripts/setup --test installs it; required: CI or "    \
            "PERFSAGE_REQUIRE_SHARED=1)");                                                     \
      std::cerr << "\n*** SKIPPED: chromium is not installed, the browser checks did not run " \
                   "(scripts/setup --test installs it) ***\n\n";                               \
      WARN("skipped: chromium is not installed (scripts/setup --test installs it)");           \
      perfsage::test::note_skipped();                                                          \
      return;                                                                                  \
    }                                                                                          \
  } while (0)

struct Page {
  std::string dom, log;
};

// Loads `url` in a fresh headless Chromium (its own profile under `work`, at most 90 s); with
// `screenshot` set, saves a PNG of a window `height` pixels tall instead of dumping the DOM.
// Virtual time lets the page's fetches and scripts finish before the dump.
inline Page load_page(const std::filesystem::path& work, const std::string& url,
                      const std::filesystem::path& screenshot = {}, int height = 2200) {
  static int n = 0;
  auto profile = work / ("chromium-profile-" + std::to_string(n++));
  // --no-sandbox: tests run as root in CI, where Chromium's sandbox refuses to start.
  std::string cmd = chromium().string() +
                    " --headless=new --no-sandbox --disable-gpu --disable-background-networking"
                    " --disable-component-update --disable-sync --no-first-run"
                    " --hide-scrollbars --user-data-dir=" +
                    profile.string() +
                    " --enable-logging=stderr --v=0 --virtual-time-budget=10000"
                    " --window-size=1280," +
                    std::to_string(height) + " ";
  cmd += screenshot.empty() ? "--dump-dom " : "--screenshot=" + screenshot.string() + " ";
  cmd +=
      "'" + url + "' > " + (work / "dom.html").string() + " 2> " + (work / "chrome.log").string();
  int rc = std::system(("timeout -k 5 90 " + cmd).c_str());
  INFO(cmd);
  // V8 reserves far more address space than it uses: under `ulimit -v` Chromium dies at start.
  rlimit as{};
  bool limited = ::getrlimit(RLIMIT_AS, &as) == 0 && as.rlim_cur != RLIM_INFINITY;
  INFO((limited ? "this process runs under ulimit -v, which Chromium cannot start under" : ""));
  REQUIRE(rc == 0);
  auto read = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  std::error_code ec;
  std::filesystem::remove_all(profile, ec);
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

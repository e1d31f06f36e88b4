// perfsage: one-shot analysis, ingest, and knowledge-base tooling.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <iostream>
#include <string>
#include <vector>

#include "app/front_end_names.h"
#include "cli/dispatch.h"

namespace {

// The analyzers allocate and free vectors of millions of events one after another. glibc's
// defaults give each large one fresh pages (mmap'd above a threshold that starts at 128 KiB,
// and a heap trimmed back to the kernel on free), and on a VM every first touch of a page
// traps: heap memory kept and reused instead cut analysing a 315 MB trace from 2.3-2.6 s to
// 2.1-2.2 s (docs/performance.md). A one-shot command gives everything back when it exits.
void keep_freed_memory() {
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's upper limit for it on 64-bit
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
#endif
}

// The packs' CLIPS environments are left to the exit rather than freed one by one (3.5 % of
// the bundled example's CPU); LeakSanitizer would call them leaks, so its builds free them.
void leave_environments_to_exit() {
#if !defined(__SANITIZE_ADDRESS__)
  perfsage::app::leave_environments_to_exit(64u << 20);
#endif
}
}  // namespace

int main(int argc, char** argv) {
  // Logs (warnings, --verbose timings) go to stderr so that stdout holds only the report; from
  // several threads (the packs compile beside the ingest, the analyzers run on two).
  spdlog::set_default_logger(spdlog::stderr_color_mt("perfsage"));
  keep_freed_memory();
  leave_environments_to_exit();
  return perfsage::cli::run({argv + 1, argv + argc}, std::cout, std::cerr, PERFSAGE_VERSION);
}

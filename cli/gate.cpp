#include "cli/gate.h"

#include "app/front_end_names.h"
#include "cli/commands.h"

namespace perfsage::cli {

const char* severity_names() {
  return "critical, high, medium, low, info (any case)";
}

int apply_fail_on(const perfsage::v1::AnalysisReport& report, perfsage::v1::Severity threshold,
                  std::ostream& err) {
  int code = kExitOk;
  for (const auto& p : report.packs()) {
    if (p.status() == "error" || p.status() == "budget_exceeded") {
      err << "perfsage: --fail-on: pack " << p.name() << " " << p.status() << ": " << p.error()
          << "\n";
      code = kExitGate;
    }
  }
  if (report.recognised_inputs() == 0) {
    err << "perfsage: --fail-on: no input was recognised\n";
    code = kExitGate;
  }
  if (code != kExitOk) return code;
  int tripped = 0;
  for (const auto& r : report.recommendations()) {
    if (r.severity() < threshold) continue;
    if (++tripped <= 5)
      err << "perfsage: --fail-on " << app::severity_name(threshold) << ": "
          << app::severity_name(r.severity()) << " finding " << r.id() << " (" << r.pack() << "/"
          << r.rule() << "): " << r.title() << "\n";
  }
  if (tripped > 5) err << "perfsage: --fail-on: and " << tripped - 5 << " more\n";
  return tripped ? kExitFailOn : kExitOk;
}

}  // namespace perfsage::cli

#include "cli/format.h"

#include <cmath>
#include <cstdio>

namespace perfsage::cli {

std::string format_us(double us) {
  char buf[64];
  double a = std::fabs(us);
  if (a < 1000) {
    std::snprintf(buf, sizeof buf, "%.1f µs", us);
  } else if (a < 1e6) {
    std::snprintf(buf, sizeof buf, "%.2f ms", us / 1e3);
  } else {
    std::snprintf(buf, sizeof buf, "%.2f s", us / 1e6);
  }
  return buf;
}

std::string format_share(double share) {
  char buf[32];
  std::snprintf(buf, sizeof buf, share * 100 < 0.1 && share > 0 ? "%.2f %%" : "%.1f %%",
                share * 100);
  return buf;
}

}  // namespace perfsage::cli

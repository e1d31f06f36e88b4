#include "store/number_text.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace perfsage::store {
namespace {

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace

std::string format_us(double us) {
  double a = std::fabs(us);
  if (a < 1000) return fixed(us, a < 10 ? 2 : 1) + " µs";
  if (a < 1e6) return fixed(us / 1e3, 2) + " ms";
  return fixed(us / 1e6, 2) + " s";
}

std::string format_pct(double ratio) {
  double p = ratio * 100;
  return fixed(p, std::fabs(p) < 0.1 && p != 0 ? 2 : 1) + " %";
}

std::string format_bytes(double bytes) {
  static const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return u == 0 ? fixed(bytes, 0) + " B" : fixed(bytes, 1) + " " + units[u];
}

std::string format_number(double v) {
  const double a = std::fabs(v);
  if (!std::isfinite(v) || a >= 1e15 || (a > 0 && a < 1e-6)) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.4g", v);
    return buf;
  }
  if (v == std::floor(v) || a >= 100) return fixed(v, 0);
  int decimals = 3 - static_cast<int>(std::floor(std::log10(a)));
  std::string s = fixed(v, std::clamp(decimals, 0, 9));
  // 12.50 -> 12.5, 0.1000 -> 0.1: trailing zeros say nothing.
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  return s;
}

std::string format_si(double v) {
  static const char* big[] = {"", " k", " M", " G", " T", " P", " E"};
  double a = std::fabs(v);
  if (a == 0 || !std::isfinite(v)) return format_number(v);
  if (a < 1e-3) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3g", v);
    return buf;
  }
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 6) {
    v /= 1000;
    ++u;
  }
  return fixed(v, std::fabs(v) < 10 ? 2 : 1) + big[u];
}

std::string format_quantity(double v, const std::string& unit) {
  if (unit == "us") return format_us(v);
  if (unit == "ms") return format_us(v * 1e3);
  if (unit == "ratio") return format_pct(v);
  if (unit == "pct") return format_pct(v / 100);
  if (unit == "bytes") return format_bytes(v);
  if (unit == "GB/s") return format_number(std::round(v * 100) / 100) + " GB/s";
  if (unit == "FLOP" || unit == "FLOP/s") return format_si(v) + unit;
  if (unit == "FLOP/byte") return format_number(v) + " FLOP/byte";
  if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15) return fixed(v, 0);
  return std::fabs(v) >= 1e6 ? format_si(v) : format_number(v);
}

}  // namespace perfsage::store

#include "cli/render_compare.h"

#include <iomanip>
#include <sstream>

#include "app/compare_html.h"
#include "app/front_end_names.h"

namespace perfsage::cli {
namespace v1 = perfsage::v1;
namespace {

using app::format_us;
using app::signed_us;

// " (+12.5 %)"; empty when a is 0.
std::string relative(double a, double b) {
  return a == 0 ? "" : " (" + app::relative_change(a, b) + ")";
}

// " (ProfilerStep steps)", " (ProfilerStep steps in A, step_trace_time in B)": what each
// step time is measured on.
std::string step_sources(const v1::RunComparison& c) {
  const auto &a = c.step_source_a(), &b = c.step_source_b();
  if (a.empty() && b.empty()) return "";
  if (a == b) return " (one rank's mean step, " + a + " steps)";
  return " (" + (a.empty() ? std::string("none") : a) + " steps in A, " +
         (b.empty() ? std::string("none") : b) + " in B)";
}

void render_side(std::ostringstream& os, const char* label, const v1::RunSummary& r) {
  os << label << " run " << r.id() << (r.job().empty() ? "" : " (job " + r.job() + ")") << ": "
     << r.device() << (r.chip().empty() ? "" : " " + r.chip()) << ", " << r.steps()
     << " steps, step time " << (r.step_time_us() > 0 ? format_us(r.step_time_us()) : "n/a") << ", "
     << r.findings() << " findings\n";
}

void row(std::ostringstream& os, const std::string& name, double a, double b) {
  os << "    " << std::left << std::setw(26) << name << std::right << std::setw(12) << format_us(a)
     << std::setw(12) << format_us(b) << std::setw(12) << signed_us(b - a) << relative(a, b)
     << "\n";
}

void render_breakdown(std::ostringstream& os, const v1::BreakdownChange& c) {
  os << "  " << (c.rank() < 0 ? std::string("whole run") : "rank " + std::to_string(c.rank()));
  if (!c.has_a() || !c.has_b()) {
    // Why a side has none, as the comparison says (a CPU-only run has no device to break down).
    auto side = [&](const char* label, bool has, const v1::StepBreakdown& b,
                    const std::string& absent) {
      os << label << (has ? b.source() : absent.empty() ? "no breakdown" : absent);
    };
    side(": A ", c.has_a(), c.a(), c.absent_a());
    side("; B ", c.has_b(), c.b(), c.absent_b());
    os << "\n";
    return;
  }
  os << " (" << c.a().source() << (c.a().source() == c.b().source() ? "" : " -> " + c.b().source())
     << ", " << c.a().steps() << " -> " << c.b().steps() << " steps per rank)\n";
  os << "    " << std::left << std::setw(26) << "per step" << std::right << std::setw(12) << "A"
     << std::setw(12) << "B" << std::setw(12) << "B - A"
     << "\n";
  row(os, "step", c.a().step_us(), c.b().step_us());
  row(os, "computing", c.a().computing_us(), c.b().computing_us());
  row(os, "communication exposed", c.a().comm_exposed_us(), c.b().comm_exposed_us());
  row(os, "idle (free)", c.a().idle_us(), c.b().idle_us());
  if (c.a().other_us() > 0 || c.b().other_us() > 0) {
    row(os, "other", c.a().other_us(), c.b().other_us());
  }
}

const char* kind_title(const std::string& kind) {
  if (kind == "op") return "Device ops (op table)";
  if (kind == "kernel") return "GPU kernels";
  if (kind == "memcpy") return "GPU copies and sets (by copy kind)";
  if (kind == "runtime") return "CUDA runtime and driver calls";
  return "CPU ops (self time)";
}

// "x18", with the bytes moved for copies: "x18, 1.5 MiB".
std::string count_text(const v1::OpDelta& d, int64_t count, int64_t bytes) {
  std::string s = "x";
  s += std::to_string(count);
  if (d.kind() == "memcpy" && bytes > 0) {
    s += ", ";
    s += app::format_bytes(static_cast<double>(bytes));
  }
  return s;
}

void render_ops(std::ostringstream& os, const v1::RunComparison& c) {
  std::string kind;
  for (const auto& d : c.ops()) {
    if (d.kind() != kind) {
      kind = d.kind();
      os << "\n"
         << kind_title(kind) << ": largest changes "
         << (c.sort() == "step" ? "per step and rank" : "in total time") << " (top " << c.top()
         << ")\n";
    }
    os << "  " << std::left << std::setw(12) << d.change() << std::right;
    if (d.has_step_delta_us()) {
      os << std::setw(12) << signed_us(d.step_delta_us()) << " per step ("
         << format_us(d.step_us_a()) << " -> " << format_us(d.step_us_b()) << "), ";
    }
    os << signed_us(d.total_delta_us()) << " total (" << format_us(d.total_us_a()) << " "
       << count_text(d, d.count_a(), d.bytes_a()) << " -> " << format_us(d.total_us_b()) << " "
       << count_text(d, d.count_b(), d.bytes_b()) << ")  "
       << (d.display_name().empty() ? d.name() : d.display_name()) << "\n";
  }
  if (c.ops().empty()) os << "\nOps: no op, kernel, CPU op, copy or runtime call changed\n";
}

void render_findings(std::ostringstream& os, const v1::RunComparison& c) {
  os << "\nFindings\n";
  int unchanged = 0;
  for (const auto& f : c.findings()) {
    if (f.change() == "unchanged") {
      ++unchanged;
      continue;
    }
    os << "  " << std::left << std::setw(12) << f.change() << std::right << "["
       << app::severity_name(f.severity()) << "] " << f.title() << "  (" << f.pack() << "/"
       << f.rule() << ", id " << f.id() << ")\n";
    if (!f.detail().empty()) os << "              " << f.detail() << "\n";
  }
  if (unchanged > 0) os << "  " << unchanged << " finding(s) unchanged\n";
  if (c.findings().empty()) os << "  neither run has findings\n";
}

}  // namespace

std::string render_compare_text(const v1::RunComparison& c) {
  std::ostringstream os;
  render_side(os, "A:", c.a());
  render_side(os, "B:", c.b());
  for (const auto& n : c.notes()) os << "  ! " << n << "\n";
  os << "\nStep time" << step_sources(c) << "\n";
  if (c.a().step_time_us() > 0 && c.b().step_time_us() > 0) {
    os << "  " << format_us(c.a().step_time_us()) << " -> " << format_us(c.b().step_time_us())
       << "  " << signed_us(c.step_time_delta_us())
       << relative(c.a().step_time_us(), c.b().step_time_us()) << "\n";
  } else {
    os << "  not compared: a run has no step time\n";
  }
  for (const auto& b : c.breakdown()) render_breakdown(os, b);
  render_ops(os, c);
  render_findings(os, c);
  return os.str();
}

}  // namespace perfsage::cli

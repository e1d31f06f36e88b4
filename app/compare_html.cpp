#include "app/compare_html.h"

#include "app/report_html.h"
#include "engine/finding.h"
#include "engine/kb/message_text.h"

namespace perfsage::app {
namespace v1 = perfsage::v1;
namespace {

using engine::format_us;

std::string td(const std::string& text, bool num = false) {
  return std::string(num ? "<td class=\"num\">" : "<td>") + html_escape(text) + "</td>";
}

std::string side(const char* label, const v1::RunSummary& r) {
  std::string s = "<div><dt>" + std::string(label) + "</dt><dd>run " + std::to_string(r.id()) +
                  (r.job().empty() ? "" : " (" + html_escape(r.job()) + ")") + ", " +
                  html_escape(r.device() + (r.chip().empty() ? "" : " " + r.chip())) + ", " +
                  std::to_string(r.steps()) + " steps, step time " +
                  (r.step_time_us() > 0 ? format_us(r.step_time_us()) : "n/a") + "</dd></div>";
  return s;
}

// What each run's step time is measured on.
std::string step_sources(const v1::RunComparison& c) {
  auto one = [](const std::string& source) {
    return source.empty() ? std::string("no recorded steps") : source + " steps";
  };
  if (c.step_source_a() == c.step_source_b())
    return "one rank's mean step, from " + one(c.step_source_a());
  return "A: " + one(c.step_source_a()) + "; B: " + one(c.step_source_b());
}

std::string part_row(const char* name, double a, double b) {
  return "<tr>" + td(name) + td(format_us(a), true) + td(format_us(b), true) +
         td(signed_us(b - a), true) + td(relative_change(a, b), true) + "</tr>\n";
}

std::string breakdown(const v1::BreakdownChange& c) {
  std::string title = c.rank() < 0 ? "Whole run" : "Rank " + std::to_string(c.rank());
  if (!c.has_a() || !c.has_b()) {
    // Why a side has none, stated neutrally: a CPU-only run has no device to break down.
    auto side = [](const char* label, bool has, const v1::StepBreakdown& b,
                   const std::string& absent) {
      return std::string(label) + ": " +
             html_escape(has ? b.source() + " breakdown"
                             : (absent.empty() ? std::string("no breakdown") : absent));
    };
    return "<h4>" + title + "</h4><p class=\"empty breakdown-absent\">" +
           side("A", c.has_a(), c.a(), c.absent_a()) + "; " +
           side("B", c.has_b(), c.b(), c.absent_b()) + "</p>\n";
  }
  std::string s = "<h4>" + title + " <span class=\"meta\">(" + html_escape(c.a().source()) + ", " +
                  std::to_string(c.a().steps()) + " &rarr; " + std::to_string(c.b().steps()) +
                  " steps per rank)</span></h4>\n";
  s += "<table class=\"grid breakdown\"><tr><th>per step</th><th class=\"num\">A</th><th "
       "class=\"num\">B</th><th class=\"num\">B &minus; A</th><th class=\"num\">change</th></tr>\n";
  s += part_row("step", c.a().step_us(), c.b().step_us());
  s += part_row("computing", c.a().computing_us(), c.b().computing_us());
  s += part_row("communication exposed", c.a().comm_exposed_us(), c.b().comm_exposed_us());
  s += part_row("idle (free)", c.a().idle_us(), c.b().idle_us());
  if (c.a().other_us() > 0 || c.b().other_us() > 0) {
    s += part_row("other", c.a().other_us(), c.b().other_us());
  }
  return s + "</table>\n";
}

// The name shown (long templated names shortened), the full name in the title attribute.
std::string name_cell(const v1::OpDelta& d) {
  const std::string& shown = d.display_name().empty() ? d.name() : d.display_name();
  if (shown == d.name()) return td(shown);
  return "<td title=\"" + html_escape(d.name()) + "\">" + html_escape(shown) + "</td>";
}

// "18", with the bytes moved for copies: "18 (1.5 MiB)".
std::string count_cell(const v1::OpDelta& d, int64_t count, int64_t bytes) {
  std::string s = std::to_string(count);
  if (d.kind() == "memcpy" && bytes > 0) s += " (" + engine::format_bytes(bytes) + ")";
  return td(s, true);
}

std::string ops(const v1::RunComparison& c) {
  if (c.ops().empty())
    return "<p class=\"empty\">no op, kernel, CPU op, copy or runtime call changed</p>\n";
  std::string s =
      "<p class=\"meta\">largest changes " +
      std::string(c.sort() == "step" ? "per step and rank" : "in total time") + ", top " +
      std::to_string(c.top()) +
      " per kind (memcpy: GPU copies and sets by copy kind; runtime: CUDA runtime and driver "
      "calls)</p>\n<table class=\"grid ops\"><tr><th>kind</th>"
      "<th>name</th><th>change</th><th class=\"num\">per step A</th><th class=\"num\">per step "
      "B</th><th class=\"num\">per step B &minus; A</th><th class=\"num\">total A</th><th "
      "class=\"num\">total B</th><th class=\"num\">total B &minus; A</th><th class=\"num\">count "
      "A</th><th class=\"num\">count B</th></tr>\n";
  for (const auto& d : c.ops()) {
    bool step = d.has_step_delta_us();
    s += "<tr class=\"op-delta\">" + td(d.kind()) + name_cell(d) + td(d.change()) +
         td(step ? format_us(d.step_us_a()) : "", true) +
         td(step ? format_us(d.step_us_b()) : "", true) +
         td(step ? signed_us(d.step_delta_us()) : "", true) + td(format_us(d.total_us_a()), true) +
         td(format_us(d.total_us_b()), true) + td(signed_us(d.total_delta_us()), true) +
         count_cell(d, d.count_a(), d.bytes_a()) + count_cell(d, d.count_b(), d.bytes_b()) +
         "</tr>\n";
  }
  return s + "</table>\n";
}

// A gain share, or "—" when the run estimates no gain for the finding (unknown, not 0 %).
std::string share(bool known, double value) {
  return known ? engine::format_pct(value) : "—";
}

std::string findings(const v1::RunComparison& c) {
  if (c.findings().empty()) return "<p class=\"empty\">neither run has findings</p>\n";
  std::string s =
      "<table class=\"grid findings\"><tr><th>change</th><th>severity</th><th>finding</th>"
      "<th>id</th><th class=\"num\">gain share A</th><th class=\"num\">gain share B</th>"
      "<th>what changed</th></tr>\n";
  for (const auto& f : c.findings()) {
    std::string sev = engine::severity_name(f.severity());
    bool in_a = f.change() != "appeared", in_b = f.change() != "disappeared";
    s += "<tr class=\"finding-change change-" + html_escape(f.change()) + "\">" + td(f.change()) +
         "<td><span class=\"badge sev-" + sev + "\">" + sev + "</span></td>" + td(f.title()) +
         td(f.id()) + td(in_a ? share(f.gain_known_a(), f.gain_share_a()) : "", true) +
         td(in_b ? share(f.gain_known_b(), f.gain_share_b()) : "", true) + td(f.detail()) +
         "</tr>\n";
  }
  return s + "</table>\n";
}

}  // namespace

std::string signed_us(double us) {
  std::string s = format_us(us);
  if (us > 0) s.insert(0, 1, '+');
  return s;
}

std::string relative_change(double a, double b) {
  if (a == 0) return "";
  std::string s = engine::format_pct(b / a - 1);
  if (b >= a) s.insert(0, 1, '+');
  return s;
}

std::string render_compare_html(const v1::RunComparison& c) {
  std::string title =
      "perfsage: run " + std::to_string(c.a().id()) + " vs run " + std::to_string(c.b().id());
  std::string out = html_head(title);
  out += "</style>\n</head>\n<body>\n<main>\n<h2>" + html_escape(title) + "</h2>\n";
  out += "<dl class=\"facts\">" + side("A", c.a()) + side("B", c.b()) + "</dl>\n";
  // Caveats about what is compared, not errors.
  for (const auto& n : c.notes()) out += "<p class=\"caveat note\">" + html_escape(n) + "</p>\n";
  out += "<h3>Step time</h3>\n";
  out += "<p class=\"meta step-source\">" + html_escape(step_sources(c)) + "</p>\n";
  if (c.a().step_time_us() > 0 && c.b().step_time_us() > 0) {
    out += "<p class=\"step-time\">" + format_us(c.a().step_time_us()) + " &rarr; " +
           format_us(c.b().step_time_us()) + " (" + signed_us(c.step_time_delta_us()) + ", " +
           relative_change(c.a().step_time_us(), c.b().step_time_us()) + ")</p>\n";
  } else {
    out += "<p class=\"empty\">not compared: a run has no step time</p>\n";
  }
  for (const auto& b : c.breakdown()) out += breakdown(b);
  out += "<h3>Ops and kernels</h3>\n" + ops(c);
  out += "<h3>Findings</h3>\n" + findings(c);
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace perfsage::app

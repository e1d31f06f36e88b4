#include "app/report_html.h"

#include <google/protobuf/util/json_util.h>

#include "app/run_detail.h"

namespace perfsage::app {
namespace {

// Text inside <script> ends at the first "</": JSON cannot contain it as written.
std::string script_safe(const std::string& json) {
  std::string out;
  out.reserve(json.size());
  for (size_t i = 0; i < json.size(); ++i) {
    if (json[i] == '<') {
      out += "\\u003c";
    } else {
      out += json[i];
    }
  }
  return out;
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<')
      out += "&lt;";
    else if (c == '>')
      out += "&gt;";
    else if (c == '&')
      out += "&amp;";
    else if (c == '"')
      out += "&quot;";
    else
      out += c;
  }
  return out;
}

std::string html_head(const std::string& title) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"perfsage\">\n";
  out +=
      "<title>" + html_escape(title) + "</title>\n<link rel=\"icon\" href=\"data:,\">\n<style>\n";
  return out + std::string(report_asset("report.css"));
}

std::string render_html(const perfsage::v1::RunDetail& detail) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = true;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(detail, &json, opts);
  if (!status.ok()) throw std::runtime_error("cannot render JSON: " + status.ToString());
  const auto& run = detail.report().run();
  std::string title =
      "perfsage run " + std::to_string(run.id()) + (run.job().empty() ? "" : " — " + run.job());
  std::string out = html_head(title);
  out +=
      "</style>\n</head>\n<body>\n<main id=\"app\"><noscript>This report needs JavaScript to "
      "draw the run.</noscript></main>\n";
  out += "<script type=\"application/json\" id=\"perfsage-data\">" + script_safe(json) +
         "</script>\n<script>\n";
  out += report_asset("run_view.js");
  out +=
      "\nPerfsageRunView.render(document.getElementById(\"app\"), "
      "JSON.parse(document.getElementById(\"perfsage-data\").textContent));\n</script>\n";
  out += "</body>\n</html>\n";
  return out;
}

Result<std::string> render_run_html(store::Database& db, int64_t run_id) {
  auto detail = load_run_detail(db, run_id);
  if (!detail) return detail.error();
  try {
    return render_html(*detail);
  } catch (const std::exception& e) {
    return Error{ErrorKind::internal, e.what()};
  }
}

}  // namespace perfsage::app

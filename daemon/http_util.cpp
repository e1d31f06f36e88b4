#include "daemon/http_util.h"

#include <google/protobuf/util/json_util.h>

#include <charconv>

namespace perfsage::daemon {

std::string to_json(const google::protobuf::Message& msg) {
  google::protobuf::util::JsonPrintOptions opts;
  opts.preserve_proto_field_names = true;
  opts.always_print_primitive_fields = true;
  std::string out;
  auto status = google::protobuf::util::MessageToJsonString(msg, &out, opts);
  if (!status.ok()) throw std::runtime_error("cannot render JSON: " + status.ToString());
  return out;
}

void send_json(httplib::Response& res, const google::protobuf::Message& msg, int status) {
  res.status = status;
  res.set_content(to_json(msg), "application/json");
}

std::string json_quote(const std::string& text) {
  std::string out = "\"";
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

void send_error(httplib::Response& res, int status, const std::string& code,
                const std::string& message) {
  res.status = status;
  res.set_content("{\"code\":" + json_quote(code) + ",\"message\":" + json_quote(message) + "}",
                  "application/json");
}

bool parse_json_body(const httplib::Request& req, httplib::Response& res,
                     google::protobuf::Message& msg) {
  google::protobuf::util::JsonParseOptions opts;
  auto status = google::protobuf::util::JsonStringToMessage(req.body, &msg, opts);
  if (status.ok()) return true;
  send_error(res, 400, "bad_request",
             "the body is not a valid " + msg.GetDescriptor()->name() +
                 " JSON object: " + std::string(status.message()));
  return false;
}

std::optional<int64_t> int_param(const httplib::Request& req, httplib::Response& res,
                                 const std::string& name, int64_t fallback, int64_t min,
                                 int64_t max) {
  if (!req.has_param(name)) return fallback;
  std::string v = req.get_param_value(name);
  int64_t n = 0;
  auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
  if (v.empty() || ec != std::errc() || end != v.data() + v.size() || n < min || n > max) {
    send_error(res, 400, "bad_request",
               "parameter " + name + " must be a whole number from " + std::to_string(min) +
                   " to " + std::to_string(max));
    return std::nullopt;
  }
  return n;
}

std::string text_param(const httplib::Request& req, const std::string& name) {
  return req.has_param(name) ? req.get_param_value(name) : std::string();
}

std::optional<int64_t> path_id(const httplib::Request& req, httplib::Response& res,
                               const char* what) {
  // One rule for every id in a path: a whole number from 1 up is well-formed (and answers 404
  // when nothing has it); anything else (a sign, letters, a number too big) is 400.
  const std::string text = req.matches[1].str();
  int64_t n = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (!text.empty() && text[0] != '-' && ec == std::errc() && end == text.data() + text.size() &&
      n >= 1)
    return n;
  send_error(res, 400, "bad_request",
             std::string(what) + " id must be a whole number from 1 to " +
                 std::to_string(INT64_MAX) + ", not '" + text.substr(0, 40) +
                 (text.size() > 40 ? "...'" : "'"));
  return std::nullopt;
}

}  // namespace perfsage::daemon

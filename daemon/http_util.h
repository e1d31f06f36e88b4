// Small helpers for the HTTP handlers: JSON bodies through protobuf's JSON mapping, JSON
// errors, query parameters.
#pragma once

#include <google/protobuf/message.h>
#include <httplib.h>

#include <cstdint>
#include <optional>
#include <string>

namespace perfsage::daemon {

// The error codes of the API (ApiError.code): bad_request 400, unauthorized 401,
// not_found 404, conflict 409, payload_too_large 413, unavailable 503, internal 500.
void send_error(httplib::Response& res, int status, const std::string& code,
                const std::string& message);
void send_json(httplib::Response& res, const google::protobuf::Message& msg, int status = 200);
std::string to_json(const google::protobuf::Message& msg);
// `text` as a JSON string literal, quotes included.
std::string json_quote(const std::string& text);
// Parses a JSON body into `msg`; on failure answers 400 and returns false.
bool parse_json_body(const httplib::Request& req, httplib::Response& res,
                     google::protobuf::Message& msg);

// A query parameter as an integer within [min, max]; `fallback` when absent. On a bad value
// answers 400 and returns nullopt.
std::optional<int64_t> int_param(const httplib::Request& req, httplib::Response& res,
                                 const std::string& name, int64_t fallback, int64_t min,
                                 int64_t max);
std::string text_param(const httplib::Request& req, const std::string& name);
// The id a route's pattern captured first (a run, plan, apply or queue job): a whole number from
// 1 up. Anything else (a sign, letters, too many digits) answers 400 naming `what` and returns
// nullopt; a well-formed id that names nothing is the handler's 404.
std::optional<int64_t> path_id(const httplib::Request& req, httplib::Response& res,
                               const char* what);

}  // namespace perfsage::daemon

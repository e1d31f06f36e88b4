// Talking to a running perfsaged over its HTTP API: where it is (flags, then $PERFSAGE_URL and
// $PERFSAGE_TOKEN, then the config file's daemon: section, then http://127.0.0.1:7737) and one
// request at a time, with the API's JSON errors turned into messages.
#pragma once

#include <google/protobuf/message.h>

#include <optional>
#include <ostream>
#include <string>

namespace perfsage::cli {

struct DaemonEndpoint {
  std::string url;    // http://host:port
  std::string token;  // empty: no Authorization header
};

struct EndpointFlags {
  std::string url, token, token_file, config;
};

// nullopt after saying why on `err` (unreadable config or token file).
std::optional<DaemonEndpoint> resolve_endpoint(const EndpointFlags& flags, std::ostream& err);

struct ApiReply {
  int status = 0;  // 0: no answer (connection refused, timeout)
  std::string body;
  std::string error;  // for status 0 or >= 400: what went wrong, readable
};

ApiReply api_get(const DaemonEndpoint& ep, const std::string& path);
ApiReply api_post(const DaemonEndpoint& ep, const std::string& path, const std::string& json);

// Percent-encodes a query parameter value.
std::string url_encode(const std::string& value);

// Parses a reply body into `msg`; false with `error` set when it is not that message.
bool parse_reply(const ApiReply& reply, google::protobuf::Message& msg, std::string& error);

}  // namespace perfsage::cli

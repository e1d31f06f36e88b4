// The address the HTTP API listens on: HOST:PORT (IPv6 in brackets), and whether every address
// the host resolves to is a loopback one (anything else needs a bearer token).
#pragma once

#include <optional>
#include <string>

namespace perfsage::daemon {

struct ListenAddress {
  std::string host;  // as written, without brackets; "0.0.0.0" when the host part was empty
  int port = 0;      // 0 = any free port (tests)
};

// nullopt with `error` set when the text is not HOST:PORT with a port in 0..65535.
std::optional<ListenAddress> parse_listen_address(const std::string& text, std::string& error);

// True when the host resolves only to loopback addresses (127.0.0.0/8, ::1). A name that does
// not resolve is not loopback.
bool is_loopback_host(const std::string& host);

}  // namespace perfsage::daemon

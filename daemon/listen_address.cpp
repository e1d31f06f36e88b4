#include "daemon/listen_address.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <charconv>
#include <memory>

namespace perfsage::daemon {

std::optional<ListenAddress> parse_listen_address(const std::string& text, std::string& error) {
  auto colon = text.rfind(':');
  if (colon == std::string::npos) {
    error = "listen address '" + text + "' must be HOST:PORT";
    return std::nullopt;
  }
  ListenAddress out;
  out.host = text.substr(0, colon);
  if (out.host.size() >= 2 && out.host.front() == '[' && out.host.back() == ']') {
    out.host = out.host.substr(1, out.host.size() - 2);
  } else if (out.host.find(':') != std::string::npos) {
    error = "listen address '" + text + "': write an IPv6 host in brackets, e.g. [::1]:7737";
    return std::nullopt;
  }
  if (out.host.empty()) out.host = "0.0.0.0";
  std::string port = text.substr(colon + 1);
  auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), out.port);
  if (port.empty() || ec != std::errc() || end != port.data() + port.size() || out.port < 0 ||
      out.port > 65535) {
    error = "listen address '" + text + "': the port must be a number from 0 to 65535";
    return std::nullopt;
  }
  return out;
}

bool is_loopback_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &res) != 0 || !res) return false;
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> guard(res, freeaddrinfo);
  for (auto* ai = res; ai; ai = ai->ai_next) {
    if (ai->ai_family == AF_INET) {
      auto* sin = reinterpret_cast<sockaddr_in*>(ai->ai_addr);
      if ((ntohl(sin->sin_addr.s_addr) >> 24) != 127) return false;
    } else if (ai->ai_family == AF_INET6) {
      auto* sin6 = reinterpret_cast<sockaddr_in6*>(ai->ai_addr);
      if (!IN6_IS_ADDR_LOOPBACK(&sin6->sin6_addr)) return false;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace perfsage::daemon

#include "cli/daemon_client.h"

#include <fmt/format.h>
#include <google/protobuf/util/json_util.h>
#include <httplib.h>
#include <yaml-cpp/yaml.h>

#include <cctype>
#include <cstdlib>
#include <fstream>

#include "perfsage/v1/api.pb.h"

namespace perfsage::cli {
namespace {

std::string first_line(const std::string& file, std::ostream& err, bool& ok) {
  std::ifstream in(file);
  if (!in) {
    err << "perfsage: cannot read token file " << file << "\n";
    ok = false;
    return "";
  }
  std::string line;
  std::getline(in, line);
  while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
  return line;
}

// A listen address as a URL to connect to: the wildcard addresses mean this host.
std::string url_of_listen(std::string listen) {
  auto colon = listen.rfind(':');
  std::string host = colon == std::string::npos ? listen : listen.substr(0, colon);
  std::string port = colon == std::string::npos ? "7737" : listen.substr(colon + 1);
  if (host.empty() || host == "0.0.0.0") host = "127.0.0.1";
  if (host == "[::]") host = "[::1]";
  return "http://" + host + ":" + port;
}

ApiReply finish(const httplib::Result& res, const DaemonEndpoint& ep) {
  ApiReply out;
  if (!res) {
    out.error = "cannot reach perfsaged at " + ep.url + " (" + httplib::to_string(res.error()) +
                "); is it running? (--url, $PERFSAGE_URL or the config's daemon.listen)";
    return out;
  }
  out.status = res->status;
  out.body = res->body;
  if (out.status >= 400) {
    perfsage::v1::ApiError err;
    if (google::protobuf::util::JsonStringToMessage(out.body, &err).ok() &&
        !err.message().empty()) {
      out.error = err.message();
    } else {
      out.error = "HTTP " + std::to_string(out.status);
    }
    if (out.status == 401) {
      out.error += ep.token.empty() ? " (give --token, --token-file or $PERFSAGE_TOKEN)" : "";
    }
  }
  return out;
}

httplib::Client client(const DaemonEndpoint& ep) {
  httplib::Client c(ep.url);
  c.set_connection_timeout(5, 0);
  c.set_read_timeout(60, 0);
  if (!ep.token.empty()) c.set_bearer_token_auth(ep.token);
  return c;
}

}  // namespace

std::optional<DaemonEndpoint> resolve_endpoint(const EndpointFlags& f, std::ostream& err) {
  DaemonEndpoint ep;
  std::string token_file = f.token_file;
  std::string listen;
  if (!f.config.empty()) {
    try {
      auto d = YAML::LoadFile(f.config)["daemon"];
      if (d && d["listen"]) listen = d["listen"].as<std::string>();
      if (d && d["token"]) ep.token = d["token"].as<std::string>();
      if (d && d["token_file"] && token_file.empty())
        token_file = d["token_file"].as<std::string>();
    } catch (const YAML::Exception& e) {
      err << "perfsage: " << f.config << ": " << e.what() << "\n";
      return std::nullopt;
    }
  }
  const char* env_url = std::getenv("PERFSAGE_URL");
  const char* env_token = std::getenv("PERFSAGE_TOKEN");
  ep.url = !f.url.empty()        ? f.url
           : env_url && *env_url ? std::string(env_url)
           : !listen.empty()     ? url_of_listen(listen)
                                 : std::string("http://127.0.0.1:7737");
  while (!ep.url.empty() && ep.url.back() == '/') ep.url.pop_back();
  if (ep.url.find("://") == std::string::npos) ep.url = "http://" + ep.url;
  bool ok = true;
  if (!f.token.empty()) {
    ep.token = f.token;
  } else if (!f.token_file.empty()) {
    ep.token = first_line(f.token_file, err, ok);
  } else if (env_token && *env_token) {
    ep.token = env_token;
  } else if (!token_file.empty()) {
    ep.token = first_line(token_file, err, ok);
  }
  if (!ok) return std::nullopt;
  return ep;
}

std::string url_encode(const std::string& value) {
  std::string out;
  for (unsigned char c : value) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("%{:02X}", c);
    }
  }
  return out;
}

ApiReply api_get(const DaemonEndpoint& ep, const std::string& path) {
  auto c = client(ep);
  return finish(c.Get(path), ep);
}

ApiReply api_post(const DaemonEndpoint& ep, const std::string& path, const std::string& json) {
  auto c = client(ep);
  return finish(c.Post(path, json, "application/json"), ep);
}

bool parse_reply(const ApiReply& reply, google::protobuf::Message& msg, std::string& error) {
  google::protobuf::util::JsonParseOptions opts;
  opts.ignore_unknown_fields = true;  // a newer daemon may say more
  auto st = google::protobuf::util::JsonStringToMessage(reply.body, &msg, opts);
  if (st.ok()) return true;
  error = "unexpected answer from perfsaged: " + std::string(st.message());
  return false;
}

}  // namespace perfsage::cli

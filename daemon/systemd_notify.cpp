#include "daemon/systemd_notify.h"

#include <systemd/sd-daemon.h>

namespace perfsage::daemon::systemd {
namespace {

// STATUS= ends at the newline: keep one line.
std::string one_line(std::string s) {
  for (auto& c : s) {
    if (c == '\n') c = ' ';
  }
  return s;
}

void send(const std::string& text) {
  sd_notify(0, text.c_str());
}

}  // namespace

void ready(const std::string& s) {
  send("READY=1\nSTATUS=" + one_line(s));
}

void reloading(const std::string& s) {
  send("RELOADING=1\nSTATUS=" + one_line(s));
}

void stopping(const std::string& s) {
  send("STOPPING=1\nSTATUS=" + one_line(s));
}

void status(const std::string& s) {
  send("STATUS=" + one_line(s));
}

}  // namespace perfsage::daemon::systemd

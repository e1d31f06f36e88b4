// systemd's notify protocol (Type=notify): READY, RELOADING, STOPPING and STATUS through
// libsystemd's sd_notify. Without $NOTIFY_SOCKET (not under systemd) every call does nothing.
#pragma once

#include <string>

namespace perfsage::daemon::systemd {

void ready(const std::string& status);
void reloading(const std::string& status);
void stopping(const std::string& status);
void status(const std::string& status);

}  // namespace perfsage::daemon::systemd

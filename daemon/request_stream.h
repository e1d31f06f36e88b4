// The httplib::Stream a served request is read from and answered on: the request comes from
// memory (the gate received it whole, daemon/connection_gate.h), so reading it never waits on
// the client and ends where the request ends; the answer goes to the socket, which the client
// must take within the send deadline.
#pragma once

#include <httplib.h>

#include <chrono>

#include "daemon/connection_gate.h"

namespace perfsage::daemon {

class RequestStream final : public httplib::Stream {
 public:
  RequestStream(const Connection& c, std::chrono::steady_clock::time_point send_deadline);

  bool is_readable() const override { return at_ < c_.request.size(); }
  bool is_writable() const override;
  ssize_t read(char* ptr, size_t size) override;
  ssize_t write(const char* ptr, size_t size) override;
  void get_remote_ip_and_port(std::string& ip, int& port) const override;
  void get_local_ip_and_port(std::string& ip, int& port) const override;
  socket_t socket() const override { return c_.fd; }

  // A write did not complete (the client went away or did not take the answer in time).
  bool failed() const { return failed_; }

 private:
  int wait_writable() const;  // poll(POLLOUT) until the deadline: > 0 when writable
  const Connection& c_;
  std::chrono::steady_clock::time_point deadline_;
  size_t at_ = 0;
  bool swallow_continue_;
  bool failed_ = false;
};

}  // namespace perfsage::daemon

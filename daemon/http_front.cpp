#include "daemon/http_front.h"

#include <algorithm>

#include "daemon/request_stream.h"

namespace perfsage::daemon {
namespace {

constexpr int kProbeThreads = 2;
constexpr int kKeepAliveMax = 20;  // requests on one connection before it is closed

// httplib hands each accepted socket to its task queue; process_and_close_socket() only passes
// it to the gate, which takes no time, so the accepting thread runs it itself.
class InlineQueue final : public httplib::TaskQueue {
 public:
  void enqueue(std::function<void()> fn) override { fn(); }
  void shutdown() override {}
};

}  // namespace

ServingLane::ServingLane(int threads, int per_client, Serve serve)
    : serve_(std::move(serve)), per_client_(std::max(per_client, 1)) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { work(); });
}

ServingLane::~ServingLane() {
  stop();
}

void ServingLane::push(ConnectionPtr c) {
  {
    std::lock_guard lock(mu_);
    if (stopping_) return;  // closed: the process is stopping
    queue_.push_back(std::move(c));
  }
  cv_.notify_one();
}

void ServingLane::stop() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    queue_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

void ServingLane::work() {
  std::unique_lock lock(mu_);
  for (;;) {
    auto next = queue_.end();
    cv_.wait(lock, [&] {
      next = std::find_if(queue_.begin(), queue_.end(), [&](const ConnectionPtr& c) {
        auto b = busy_.find(c->peer_ip);
        return b == busy_.end() || b->second < per_client_;
      });
      return stopping_ || next != queue_.end();
    });
    if (stopping_) return;
    ConnectionPtr c = std::move(*next);
    queue_.erase(next);
    std::string ip = c->peer_ip;
    ++busy_[ip];
    lock.unlock();
    serve_(std::move(c));
    lock.lock();
    if (--busy_[ip] <= 0) busy_.erase(ip);
    cv_.notify_all();  // a request of that client may be next
  }
}

HttpFront::HttpFront(const HttpLimits& limits, Metrics* metrics)
    : limits_(limits),
      probes_(kProbeThreads, kProbeThreads, [this](ConnectionPtr c) { serve(std::move(c)); }),
      lane_(limits.threads, std::max(limits.threads / 2, 1),
            [this](ConnectionPtr c) { serve(std::move(c)); }),
      gate_(limits, metrics,
            [this](ConnectionPtr c) { (c->probe ? probes_ : lane_).push(std::move(c)); }) {
  new_task_queue = [] { return new InlineQueue; };
  // What the Keep-Alive header announces; the gate and serve() keep to it.
  set_keep_alive_max_count(kKeepAliveMax);
  set_keep_alive_timeout(std::max<time_t>(1, (limits.idle_timeout.count() + 999) / 1000));
}

HttpFront::~HttpFront() {
  stop_front();
}

void HttpFront::start_front() {
  gate_.start();
}

void HttpFront::stop_front() {
  stopping_ = true;
  gate_.stop();
  probes_.stop();
  lane_.stop();
}

bool HttpFront::process_and_close_socket(socket_t sock) {
  gate_.admit(sock);
  return true;
}

void HttpFront::serve(ConnectionPtr c) {
  RequestStream strm(*c, std::chrono::steady_clock::now() + limits_.send_timeout);
  const bool last = c->served + 1 >= kKeepAliveMax || stopping_;
  bool closed = false, ok = false;
  try {
    ok = process_request(strm, last, closed, nullptr);
  } catch (const std::exception&) {  // handlers' exceptions are httplib's; this is out of memory
  }
  ++c->served;
  if (ok && !closed && !last && !strm.failed() && !stopping_)
    gate_.resume(std::move(c));
  else
    gate_.close(std::move(c));
}

}  // namespace perfsage::daemon

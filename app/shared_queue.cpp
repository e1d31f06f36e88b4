#include "app/shared_queue.h"

#include <thread>

#include "store/pg/pg_job_queue.h"
#include "store/pg/pg_schema.h"

namespace perfsage::app {

std::unique_ptr<JobQueue> open_shared_queue(const std::string& uri, QueuePolicy policy,
                                            const std::string& instance) {
  return std::make_unique<store::pg::PgJobQueue>(uri, policy, store::pg::system_clock_ms, instance);
}

int migrate_shared_database(const std::string& uri) {
  store::pg::Connection c(uri);
  return store::pg::migrate(c);
}

struct SharedQueueNotifications::Impl {
  std::string uri;
  std::unique_ptr<store::pg::JobNotifications> listener;
};

SharedQueueNotifications::SharedQueueNotifications(const std::string& uri)
    : impl_(std::make_unique<Impl>()) {
  impl_->uri = uri;
}

SharedQueueNotifications::~SharedQueueNotifications() = default;

bool SharedQueueNotifications::wait(std::chrono::milliseconds timeout) {
  try {
    if (!impl_->listener)
      impl_->listener = std::make_unique<store::pg::JobNotifications>(impl_->uri);
    return impl_->listener->wait(timeout);
  } catch (const store::StoreError&) {
    // The server is away: connect again on the next call, not before the timeout has passed
    // (a refused connection fails at once, and the caller waits in a loop).
    impl_->listener.reset();
    std::this_thread::sleep_for(timeout);
    return false;
  }
}

}  // namespace perfsage::app

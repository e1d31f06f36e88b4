#include "app/knowledge_in_flight.h"

namespace perfsage::app {

KnowledgeInFlight::KnowledgeInFlight(const AppConfig& config, const Resources& resources,
                                     KnowledgeRequest request,
                                     std::function<void(const Knowledge&)> on_loaded)
    : knowledge_(std::make_shared<Knowledge>()) {
  analyzer_error_ = load_analyzer_knowledge(config, resources, *knowledge_);
  // The thread reads its own copies: the caller's config may go before the packs are compiled.
  thread_ = std::thread(
      [this, config, resources, request = std::move(request), on_loaded = std::move(on_loaded)] {
        try {
          packs_.emplace(load_packs(config, resources, request));
          if (*packs_ && !analyzer_error_ && on_loaded) on_loaded(***packs_);
        } catch (...) {
          thrown_ = std::current_exception();
        }
        done_.store(true, std::memory_order_release);
      });
}

KnowledgeInFlight::~KnowledgeInFlight() {
  if (thread_.joinable()) thread_.join();
}

const Result<std::shared_ptr<const Knowledge>>& KnowledgeInFlight::wait() {
  if (thread_.joinable()) thread_.join();
  if (thrown_) std::rethrow_exception(thrown_);
  if (loaded_) return *loaded_;
  if (!*packs_) {
    loaded_.emplace(packs_->error());
  } else if (analyzer_error_) {
    loaded_.emplace(*analyzer_error_);
  } else {
    Knowledge& packs = ***packs_;
    knowledge_->packs = std::move(packs.packs);
    knowledge_->messages = std::move(packs.messages);
    knowledge_->pack_paths = std::move(packs.pack_paths);
    loaded_.emplace(std::shared_ptr<const Knowledge>(knowledge_));
  }
  return *loaded_;
}

}  // namespace perfsage::app

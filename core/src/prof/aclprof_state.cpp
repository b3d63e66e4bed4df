#include "prof/aclprof_state.hpp"

#include <atomic>

#include "prof/session.hpp"
#include "prof/subscriptions.hpp"

namespace arun {
namespace {

std::atomic<uint64_t> g_epochs{0};

}  // namespace

AclprofState::AclprofState() : epoch(g_epochs.fetch_add(1) + 1) {}

AclprofState::~AclprofState() {
  reset();
}

void AclprofState::reset() {
  std::map<uint32_t, std::shared_ptr<prof::ModelSubscription>> subscribed;
  {
    std::lock_guard lock(mu);
    subscribed.swap(subscriptions);
  }
  end_subscriptions(subscribed);
  std::lock_guard lock(mu);
  if (started != nullptr) Profiler::instance().stop();  // Runtime::finalize stops it too
  started = nullptr;
  initialized = false;
  output_dir.clear();
  options.clear();
  for (const aclprofConfig* c : configs) delete c;
  configs.clear();
  for (const ProfStamp* s : stamps) delete s;
  stamps.clear();
  for (const aclprofStepInfo* s : steps) delete s;
  steps.clear();
  ranges.clear();
  epoch = g_epochs.fetch_add(1) + 1;
}

}  // namespace arun

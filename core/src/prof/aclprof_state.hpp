// The state of API-driven profiling (spec 2.10): what aclprofInit .. aclprofFinalize set up, the
// configurations, msproftx stamps, open ranges and step infos the program holds. Owned by the
// Runtime (one per aclInit) and reset by its teardown, so a later aclInit starts over with
// aclprofInit and every object of the old runtime is gone. front/aclprof.cpp holds the logic.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "acl/acl_prof.h"

// The ACL handle types are opaque to the program; these are their definitions.
struct aclprofConfig {
  std::vector<uint32_t> devices;
  aclprofAicoreMetrics metrics;
  uint64_t mask;
};

struct aclprofStepInfo {
  uint64_t id;
  bool used[2];  // ACL_STEP_START, ACL_STEP_END taken
};

namespace arun {

namespace prof {
class ModelSubscription;
}

// What aclprofCreateStamp hands out (as void*).
struct ProfStamp {
  uint32_t message = 0;  // interned text of aclprofSetStampTraceMessage
};

// A range opened by aclprofPush (on the thread's own stack) or aclprofRangeStart.
struct ProfOpenRange {
  uint32_t name;
  uint32_t thread;
  uint64_t start;
  uint64_t epoch = 0;  // AclprofState::epoch when it was pushed: one from an earlier state is void
};

struct AclprofState {
  AclprofState();
  ~AclprofState();
  AclprofState(const AclprofState&) = delete;
  AclprofState& operator=(const AclprofState&) = delete;

  // Stops the session aclprofStart started (if it still runs), frees every config, stamp and step
  // info and voids the ranges pushed so far (a new epoch). Runtime::teardown calls it.
  void reset();

  std::mutex mu;             // guards everything below
  bool initialized = false;  // between aclprofInit and aclprofFinalize
  std::string output_dir;
  std::map<int, std::string> options;  // aclprofSetConfig values
  std::set<const aclprofConfig*> configs;
  const aclprofConfig* started = nullptr;  // the config of the session aclprofStart started
  aclprofConfig started_copy{};            // ... kept in case the program destroys it meanwhile
  std::set<const ProfStamp*> stamps;
  std::set<const aclprofStepInfo*> steps;
  std::map<uint32_t, ProfOpenRange> ranges;  // aclprofRangeStart ids
  uint32_t next_range = 0;
  uint64_t next_step = 0;
  // Process-unique, new for each state and each reset: aclprofPush keeps ranges on a thread-local
  // stack (no lock), and a pop drops those tagged with another epoch.
  uint64_t epoch = 0;
  // aclprofModelSubscribe: model id -> its subscription (ended by reset()).
  std::map<uint32_t, std::shared_ptr<prof::ModelSubscription>> subscriptions;
};

}  // namespace arun

// Choosing the scheduling policy: the built-in policies, their options, and the spec strings of
// ASCEND_RUN_SCHED / arunSetSchedulerPolicy ("NAME[:key=value,...]").
//
// Precedence (highest first): arunSetSchedulerPolicy before aclInit, ASCEND_RUN_SCHED, the
// config's [scheduler] table, the default ("priority"). The winner is taken whole: options of a
// lower source are not merged in, so what `ascend-run info` shows is exactly what was asked for.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

#include "arun/core/status.hpp"
#include "sched/scheduler_policy.hpp"

namespace arun {

// Bound of each stream's pending queue unless [scheduler] queue_depth says otherwise.
inline constexpr int64_t kDefaultQueueDepth = 1024;
inline constexpr int64_t kMaxQueueDepth = 1 << 20;

struct PolicySpec {
  std::string name;
  toml::table options;     // as written; validated by resolve_scheduler
  std::string origin;      // names the source in messages: "f.toml", "ASCEND_RUN_SCHED", ...
  std::string source;      // for the report: "config", "ASCEND_RUN_SCHED", "arunSetSchedulerPolicy", "default"
  bool from_toml = false;  // option keys carry file positions and are written scheduler.<key>
};

struct SchedulerChoice {
  std::string name;
  std::string source;
  uint32_t queue_depth = kDefaultQueueDepth;
  uint64_t aging_ns = 0;          // priority
  std::vector<uint32_t> weights;  // wrr: one per priority level
  bool plugin = false;            // a scheduler plugin (libarun_scheduler_<name>.so)
  std::string describe() const;   // "priority (aging_us=0, queue_depth=1024)"
};

// "NAME[:key=value,...]" -> spec. A value is read as TOML when it parses as one (123, true,
// "text"), else as a plain string; commas not followed by key= belong to the value ("8,4,2").
// Errors: Errc::invalid_param naming `origin`.
Status parse_policy_spec(std::string_view text, const std::string& origin, PolicySpec* out);

// The built-in policy names, comma-separated, in documentation order.
const char* builtin_policy_names();
bool is_builtin_policy(std::string_view name);

// Validates a spec. Built-in policies check their own options; for any other name the caller
// must find a scheduler plugin, which accepts only queue_depth here (its own options go in its
// [[plugin]] entry). `code` is the error code of the source (config errors: file_attr_invalid;
// env and API: invalid_param).
Status resolve_scheduler(const PolicySpec& spec, Errc code, SchedulerChoice* out);

std::unique_ptr<SchedulerPolicy> make_builtin_policy(const SchedulerChoice& choice);

}  // namespace arun

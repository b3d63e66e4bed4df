// sjf: shortest job first, as a scheduler plugin. The ready head of the stream whose tasks have
// been shortest so far (mean of the device-measured run times, or an exponential moving average
// with `ewma` > 0) runs next; a stream with no measurement yet counts as 0, so it is measured early;
// ties go to the task that became ready first. It minimises mean waiting time when streams differ
// in task length, at the price of starving a long-task stream while short tasks keep coming.
#include <cstdio>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "arun/plugin/plugin_abi.hpp"
#include "arun/plugin/scheduler.hpp"

namespace arun::sjf {

using namespace arun::plugin;

namespace {

class SjfPolicy final : public SchedulingPolicy {
 public:
  explicit SjfPolicy(double ewma) : ewma_(ewma) {}

  void stream_added(const StreamInfo& stream) override { streams_.try_emplace(stream.stream_id); }
  void stream_removed(int32_t stream_id) override { streams_.erase(stream_id); }

  void ready(const ReadyTask& task) override {
    ready_[static_cast<uint32_t>(task.kind)].push_back({task, ++ready_seq_});
  }

  bool pick(UnitKind kind, ReadyTask* out) override {
    auto& r = ready_[static_cast<uint32_t>(kind)];
    if (r.empty()) return false;
    size_t best = 0;
    double best_cost = cost(r[0].task.stream_id);
    for (size_t i = 1; i < r.size(); ++i) {
      double c = cost(r[i].task.stream_id);
      if (c < best_cost || (c == best_cost && r[i].seq < r[best].seq)) {
        best = i;
        best_cost = c;
      }
    }
    *out = r[best].task;
    r[best] = r.back();
    r.pop_back();
    return true;
  }

  bool discard(int32_t stream_id) override {
    for (auto& r : ready_) {
      for (size_t i = 0; i < r.size(); ++i) {
        if (r[i].task.stream_id != stream_id) continue;
        r[i] = r.back();
        r.pop_back();
        return true;
      }
    }
    return false;
  }

  void finished(const ReadyTask& task, uint64_t run_ns) override {
    auto it = streams_.find(task.stream_id);
    if (it == streams_.end()) return;  // removed while its last task ran
    Stats& s = it->second;
    ++s.count;
    if (ewma_ > 0 && s.count > 1) {
      s.mean = ewma_ * double(run_ns) + (1 - ewma_) * s.mean;
    } else {
      s.mean += (double(run_ns) - s.mean) / double(s.count);
    }
  }

 private:
  struct Stats {
    uint64_t count = 0;
    double mean = 0;
  };
  struct Entry {
    ReadyTask task;
    uint64_t seq;
  };
  double cost(int32_t stream_id) {
    auto it = streams_.find(stream_id);
    return it == streams_.end() ? 0 : it->second.mean;
  }

  double ewma_;
  std::unordered_map<int32_t, Stats> streams_;
  std::vector<Entry> ready_[kUnitKindCount];
  uint64_t ready_seq_ = 0;
};

class SjfPlugin final : public SchedulerPlugin {
 public:
  explicit SjfPlugin(double ewma) : ewma_(ewma) {}
  SchedulingPolicy* create_policy(const DeviceProperties&, char*, size_t) override { return new SjfPolicy(ewma_); }

 private:
  double ewma_;
};

const OptionSpec kOptions[] = {
    {"ewma", OptionType::Float, 0.0, 1.0, "0",
     "weight of the newest run time in a stream's estimate; 0 = plain mean of all its tasks"},
};

PluginObject* create(HostServices*, const OptionValues* options, char* error, size_t error_size) {
  try {
    return new SjfPlugin(options ? options->get_double("ewma", 0) : 0);
  } catch (...) {
    std::snprintf(error, error_size, "sjf: out of memory");
    return nullptr;
  }
}

}  // namespace

extern const PluginDescriptor kSjfDescriptor;
const PluginDescriptor kSjfDescriptor{
    ARUN_PLUGIN_HEADER,
    PluginKind::Scheduler,
    "sjf",
    "0.1.0",
    "",
    "Shortest job first by each stream's measured mean task time",
    kOptions,
    1,
    &create,
};

}  // namespace arun::sjf

ARUN_DECLARE_PLUGIN(arun::sjf::kSjfDescriptor)

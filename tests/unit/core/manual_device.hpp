// ManualDevice: a device whose units never run anything by themselves. launch() only records the
// work; a test completes it explicitly. This makes every scheduling decision observable and
// deterministic: which task a unit got, and when the next one is launched.
#pragma once

#include <deque>
#include <mutex>
#include <vector>

#include "arun/plugin/device.hpp"

namespace arun::test {

class ManualDevice final : public plugin::Device {
 public:
  ManualDevice(uint32_t compute, uint32_t copy) {
    props_.soc_name = "manual";
    props_.compute_units = compute;
    props_.copy_units = copy;
    props_.memory_bytes = 1 << 20;
  }
  struct Launched {
    plugin::UnitKind kind;
    uint32_t unit;
    plugin::Work* work;
  };

  const plugin::DeviceProperties& properties() const override { return props_; }
  Status open() override { return Status::Ok(); }
  void close() override {}
  Status allocate(uint64_t, plugin::PageKind, plugin::DevAddr*) override {
    return Status(Errc::rt_memory_allocation, "manual device has no memory");
  }
  Status release(plugin::DevAddr) override { return Status(Errc::rt_memory_free, "none"); }
  plugin::MemoryUsage memory_usage() const override { return {}; }
  bool owns(plugin::DevAddr) const override { return false; }
  bool find_allocation(plugin::DevAddr, plugin::DevAddr*, uint64_t*) const override { return false; }
  void* map(plugin::DevAddr, uint64_t) override { return nullptr; }
  uint64_t now_ns() const override { return ++clock_; }
  uint32_t unit_count(plugin::UnitKind kind) const override {
    return kind == plugin::UnitKind::Compute ? props_.compute_units : props_.copy_units;
  }
  void launch(plugin::UnitKind kind, uint32_t unit, plugin::Work* work) override {
    std::lock_guard lock(mu_);
    running_.push_back({kind, unit, work});
    history_.push_back(work->args);
  }
  plugin::WorkResult execute_now(plugin::Work*) override { return {}; }

  // Completes the running work whose args == tag (args carries a test tag); returns false if none.
  // `run_ns` is the execution time the completion reports (what measuring policies charge).
  bool complete(void* tag, int status = 0, uint64_t run_ns = 1) {
    Launched l{};
    {
      std::lock_guard lock(mu_);
      auto it = std::find_if(running_.begin(), running_.end(), [&](const Launched& x) { return x.work->args == tag; });
      if (it == running_.end()) return false;
      l = *it;
      running_.erase(it);
    }
    plugin::WorkResult r;
    r.status = status;
    r.unit = l.unit;
    r.start_ns = now_ns();
    r.end_ns = r.start_ns + run_ns;
    l.work->on_complete(l.work, r);
    return true;
  }
  std::vector<void*> running_tags() const {
    std::lock_guard lock(mu_);
    std::vector<void*> out;
    for (auto& l : running_) out.push_back(l.work->args);
    return out;
  }
  std::vector<Launched> running() const {
    std::lock_guard lock(mu_);
    return {running_.begin(), running_.end()};
  }
  std::vector<void*> history() const {
    std::lock_guard lock(mu_);
    return history_;
  }

 private:
  plugin::DeviceProperties props_;
  mutable std::mutex mu_;
  std::deque<Launched> running_;
  std::vector<void*> history_;
  mutable std::atomic<uint64_t> clock_{0};
};

// A distinct tag for task `n` (the tests recognise tasks by their tags).
inline void* tag(uintptr_t n) {
  return reinterpret_cast<void*>(n);
}

}  // namespace arun::test

// HandleTable: maps the opaque handles the C API hands out (aclrtStream, aclrtEvent, aclrtContext)
// to live objects. Handles are never-reused ids, not pointers, so a destroyed or foreign handle is
// recognised as such (ACL_ERROR_RT_INVALID_HANDLE) instead of being dereferenced.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace arun {

enum class HandleKind : uint64_t {
  Context = 1,
  Stream = 2,
  Event = 3,
  Notify = 4,
  Binary = 5,
  Function = 6,
  Graph = 7,
  // Model runtime instance parts (runtime/graph.hpp): tasks, instance streams, task groups,
  // condition handles.
  GraphTask = 8,
  GraphStream = 9,
  TaskGroup = 10,
  CondHandle = 11
};

template <class T>
class HandleTable {
 public:
  explicit HandleTable(HandleKind kind) : kind_(kind) {}

  void* add(std::shared_ptr<T> object) {
    std::unique_lock lock(mu_);
    // High bits make handles look unlike small integers or heap pointers in a debugger; the low
    // four bits carry the kind so a stream handle passed as an event is not found.
    uint64_t id = (uint64_t(0xA5C) << 48) | (next_serial() << 4) | uint64_t(kind_);
    object->set_handle(reinterpret_cast<void*>(id));
    objects_.emplace(id, std::move(object));
    return reinterpret_cast<void*>(id);
  }

  std::shared_ptr<T> find(const void* handle) const {
    std::shared_lock lock(mu_);
    auto it = objects_.find(reinterpret_cast<uint64_t>(handle));
    return it == objects_.end() ? nullptr : it->second;
  }

  std::shared_ptr<T> remove(const void* handle) {
    std::unique_lock lock(mu_);
    auto it = objects_.find(reinterpret_cast<uint64_t>(handle));
    if (it == objects_.end()) return nullptr;
    auto object = std::move(it->second);
    objects_.erase(it);
    return object;
  }

  std::vector<std::shared_ptr<T>> snapshot() const {
    std::shared_lock lock(mu_);
    std::vector<std::shared_ptr<T>> out;
    out.reserve(objects_.size());
    for (auto& [id, object] : objects_) out.push_back(object);
    return out;
  }

  size_t size() const {
    std::shared_lock lock(mu_);
    return objects_.size();
  }

  void clear() {
    std::unordered_map<uint64_t, std::shared_ptr<T>> doomed;
    {
      std::unique_lock lock(mu_);
      doomed.swap(objects_);
    }
  }

 private:
  // Process-wide, so handles stay unique across aclFinalize / aclInit cycles.
  static uint64_t next_serial() {
    static std::atomic<uint64_t> serial{0};
    return serial.fetch_add(1, std::memory_order_relaxed) + 1;
  }

  HandleKind kind_;
  mutable std::shared_mutex mu_;
  std::unordered_map<uint64_t, std::shared_ptr<T>> objects_;
};

}  // namespace arun

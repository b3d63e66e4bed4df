#include "runtime/model_table.hpp"

#include <atomic>
#include <utility>

namespace arun {

namespace {
// Process-wide, not per runtime: an id handed out by a runtime that was finalized stays unknown in
// the next one instead of naming another model.
std::atomic<uint32_t> g_next_id{1};
}  // namespace

uint32_t ModelTable::add(std::shared_ptr<rt::ModelObject> model) {
  std::lock_guard<std::mutex> lock(mutex_);
  const uint32_t id = g_next_id.fetch_add(1, std::memory_order_relaxed);
  models_.emplace(id, std::move(model));
  return id;
}

std::shared_ptr<rt::ModelObject> ModelTable::find(uint32_t id) const {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(id);
  return it == models_.end() ? nullptr : it->second;
}

std::shared_ptr<rt::ModelObject> ModelTable::remove(uint32_t id) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = models_.find(id);
  if (it == models_.end()) return nullptr;
  std::shared_ptr<rt::ModelObject> m = std::move(it->second);
  models_.erase(it);
  return m;
}

void ModelTable::abandon_all() {
  std::map<uint32_t, std::shared_ptr<rt::ModelObject>> models;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    models.swap(models_);
  }
  for (auto& [id, m] : models) m->abandon();
}

}  // namespace arun

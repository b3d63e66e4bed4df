// The runtime's loaded models (arun/runtime/models.hpp), by id. Owned by Runtime, which abandons
// and drops whatever is still loaded when it is torn down.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "arun/core/status.hpp"
#include "arun/runtime/models.hpp"

namespace arun {

class ModelTable {
 public:
  uint32_t add(std::shared_ptr<rt::ModelObject> model);
  std::shared_ptr<rt::ModelObject> find(uint32_t id) const;  // nullptr if not loaded
  std::shared_ptr<rt::ModelObject> remove(uint32_t id);      // nullptr if not loaded
  // Abandons every model and drops the table's references (outside the lock).
  void abandon_all();

 private:
  mutable std::mutex mutex_;
  std::map<uint32_t, std::shared_ptr<rt::ModelObject>> models_;
};

}  // namespace arun

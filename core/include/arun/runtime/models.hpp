// Front door: the runtime's table of loaded models (see front_door.hpp for the conventions).
//
// model/ (which sits above the core) imports, plans and executes models; the core only owns what
// it loaded, by id, so that a model dies with its runtime: aclFinalize abandons every model still
// loaded (its device handles belong to the runtime going away) and drops it.
#pragma once

#include <cstdint>
#include <memory>

#include "arun/core/status.hpp"
#include "arun/runtime/call.hpp"

namespace arun::rt {

// A loaded model as the core holds it (model/ implements it).
class ModelObject {
 public:
  virtual ~ModelObject() = default;
  // The runtime is going away: the destructor must not touch its handles. Called once, by
  // aclFinalize, before the table drops its reference.
  virtual void abandon() = 0;
  // The device the model was loaded on (aclprofModelSubscribe).
  virtual int32_t device() const { return 0; }
};

// Adds `model` to the runtime's table under a fresh id (unique in the process, from 1).
// Errors: ACL_ERROR_UNINITIALIZE (no runtime).
Status add_model(std::shared_ptr<ModelObject> model, uint32_t* id);
// The model loaded as `id`. Errors: ACL_ERROR_GE_EXEC_MODEL_ID_INVALID (not loaded),
// ACL_ERROR_UNINITIALIZE.
Status find_model(uint32_t id, std::shared_ptr<ModelObject>* out);
// Takes the model `id` out of the table and hands it to the caller, who drops it (its destructor
// may wait for the device). Errors as find_model.
Status remove_model(uint32_t id, std::shared_ptr<ModelObject>* out);

}  // namespace arun::rt

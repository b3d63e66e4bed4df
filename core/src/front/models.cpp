// Front door implementation: models (arun/runtime/models.hpp).
#include "arun/runtime/models.hpp"

#include <string>
#include <utility>

#include "acl/error_codes/ge_error_codes.h"
#include "base/status_helpers.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {

namespace {

Status not_loaded(uint32_t id) {
  return Status(static_cast<Errc>(ACL_ERROR_GE_EXEC_MODEL_ID_INVALID),
                "model id " + std::to_string(id) + " is not loaded");
}

}  // namespace

Status add_model(std::shared_ptr<ModelObject> model, uint32_t* id) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  *id = rt->models().add(std::move(model));
  return Status::Ok();
}

Status find_model(uint32_t id, std::shared_ptr<ModelObject>* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  *out = rt->models().find(id);
  return *out ? Status::Ok() : not_loaded(id);
}

Status remove_model(uint32_t id, std::shared_ptr<ModelObject>* out) {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return no_runtime();
  *out = rt->models().remove(id);
  return *out ? Status::Ok() : not_loaded(id);
}

}  // namespace arun::rt

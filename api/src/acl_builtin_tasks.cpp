// Spec part 2, 4.9: built-in device tasks — aclrtReduceAsync, aclrtRandomNumAsync and
// aclrtTaskUpdateAsync. The ACL layer checks what CANN's wrapper checks (NULL pointers, the
// accepted data types); the runtime checks the rest (arun/runtime/builtin_tasks.hpp).
#include "api_call.hpp"
#include "arun/runtime/builtin_tasks.hpp"

using namespace arun;
using namespace arun::api;

namespace {

// The data types CANN's ACL layer lets through for a reduce (the chip may support fewer).
bool reduce_type_accepted(int64_t type) {
  switch (type) {
    case ACL_FLOAT:
    case ACL_FLOAT16:
    case ACL_INT16:
    case ACL_INT4:
    case ACL_INT8:
    case ACL_INT32:
    case ACL_BF16:
    case ACL_UINT8:
    case ACL_UINT16:
    case ACL_UINT32:
      return true;
    default:
      return false;
  }
}

bool random_type_accepted(int64_t type) {
  switch (type) {
    case ACL_INT32:
    case ACL_INT64:
    case ACL_UINT32:
    case ACL_UINT64:
    case ACL_BF16:
    case ACL_FLOAT16:
    case ACL_FLOAT:
      return true;
    default:
      return false;
  }
}

}  // namespace

extern "C" {

aclError aclrtReduceAsync(void* dst, const void* src, uint64_t count, aclrtReduceKind kind, aclDataType type,
                          aclrtStream stream, void* reserve) {
  return api_call("aclrtReduceAsync", [&] {
    if (dst == nullptr) return invalid_param("dst is NULL");
    if (src == nullptr) return invalid_param("src is NULL");
    if (reserve != nullptr) return invalid_param("reserve must be NULL");
    if (!reduce_type_accepted(raw(type))) {
      return invalid_param("data type " + std::to_string(raw(type)) + " cannot be reduced");
    }
    return rt::reduce_async(dst, src, count, raw(kind), raw(type), stream);
  });
}

aclError aclrtRandomNumAsync(const aclrtRandomNumTaskInfo* taskInfo, const aclrtStream stream, void* reserve) {
  return api_call("aclrtRandomNumAsync", [&] {
    if (taskInfo == nullptr) return invalid_param("taskInfo is NULL");
    if (!random_type_accepted(raw(taskInfo->dataType))) {
      return invalid_param("dataType " + std::to_string(raw(taskInfo->dataType)) +
                           " is not INT32, INT64, UINT32, UINT64, BF16, FLOAT16 or FLOAT");
    }
    if (reserve != nullptr) return rt_param_invalid("reserve must be NULL");
    return rt::random_num_async(taskInfo, stream);
  });
}

aclError aclrtTaskUpdateAsync(aclrtStream taskStream, uint32_t taskId, aclrtTaskUpdateInfo* info,
                              aclrtStream execStream) {
  return api_call("aclrtTaskUpdateAsync", [&] {
    if (info == nullptr) return invalid_param("info is NULL");
    return rt::task_update_async(taskStream, taskId, info, execStream);
  });
}

}  // extern "C"

// TEMPORARY (branch h-ops): the streams and memory contract functions model/ calls
// (arun/runtime/streams.hpp, memory.hpp), forwarded to the exported C functions until the helpers
// that own those areas implement them. Deleted at merge.
#include <string>

#include "acl/acl.h"
#include "arun/runtime/memory.hpp"
#include "arun/runtime/streams.hpp"

namespace arun::rt {

namespace {
Status check(aclError rc, const char* what) {
  if (rc == ACL_SUCCESS) return Status::Ok();
  return Status(static_cast<Errc>(rc), std::string(what) + " failed");
}
}  // namespace

Status create_stream(uint32_t priority, uint32_t flags, aclrtStream* out) {
  return check(aclrtCreateStreamWithConfig(out, priority, flags), "aclrtCreateStreamWithConfig");
}
Status destroy_stream(aclrtStream stream, bool force) {
  return force ? check(aclrtDestroyStreamForce(stream), "aclrtDestroyStreamForce")
               : check(aclrtDestroyStream(stream), "aclrtDestroyStream");
}
Status synchronize_stream(aclrtStream stream, int32_t timeout_ms) {
  return check(aclrtSynchronizeStreamWithTimeout(stream, timeout_ms), "aclrtSynchronizeStream");
}
Status create_event(uint32_t flags, aclrtEvent* out) {
  return check(aclrtCreateEventWithFlag(out, flags), "aclrtCreateEventWithFlag");
}
Status destroy_event(aclrtEvent event) {
  return check(aclrtDestroyEvent(event), "aclrtDestroyEvent");
}
Status record_event(aclrtEvent event, aclrtStream stream) {
  return check(aclrtRecordEvent(event, stream), "aclrtRecordEvent");
}
Status stream_wait_event(aclrtStream stream, aclrtEvent event) {
  return check(aclrtStreamWaitEvent(stream, event), "aclrtStreamWaitEvent");
}
Status synchronize_event(aclrtEvent event, int32_t timeout_ms) {
  return check(aclrtSynchronizeEventWithTimeout(event, timeout_ms), "aclrtSynchronizeEvent");
}
Status device_malloc(void** out, size_t size, uint32_t policy, const void*) {
  return check(aclrtMalloc(out, size, static_cast<aclrtMemMallocPolicy>(policy)), "aclrtMalloc");
}
Status device_free(void* ptr) {
  return check(aclrtFree(ptr), "aclrtFree");
}
Status memcpy_sync(void* dst, size_t dest_max, const void* src, size_t count, int kind) {
  return check(aclrtMemcpy(dst, dest_max, src, count, static_cast<aclrtMemcpyKind>(kind)), "aclrtMemcpy");
}

}  // namespace arun::rt

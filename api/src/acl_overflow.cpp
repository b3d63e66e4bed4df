// Spec part 2, 4.8: floating-point overflow detection — the per-stream switch, the device's
// overflow status (read and cleared by stream-ordered tasks), the older parts' float-status
// registers and the context's overflow word. The model is in arun/runtime/overflow.hpp.
#include "api_call.hpp"
#include "arun/runtime/overflow.hpp"

using namespace arun;
using namespace arun::api;

extern "C" {

aclError aclrtSetStreamOverflowSwitch(aclrtStream stream, uint32_t flag) {
  return api_call("aclrtSetStreamOverflowSwitch", [&] {
    if (flag > 1) return invalid_param("flag is " + std::to_string(flag) + "; it must be 0 (off) or 1 (on)");
    return rt::set_stream_overflow_switch(stream, flag);
  });
}

aclError aclrtGetStreamOverflowSwitch(aclrtStream stream, uint32_t* flag) {
  return api_call("aclrtGetStreamOverflowSwitch", [&] {
    if (flag == nullptr) return invalid_param("flag is NULL");
    return rt::stream_overflow_switch(stream, flag);
  });
}

aclError aclrtGetOverflowStatus(void* outputAddr, size_t outputSize, aclrtStream stream) {
  return api_call("aclrtGetOverflowStatus", [&] {
    if (outputAddr == nullptr) return invalid_param("outputAddr is NULL");
    return rt::get_overflow_status(outputAddr, outputSize, stream);
  });
}

aclError aclrtResetOverflowStatus(aclrtStream stream) {
  return api_call("aclrtResetOverflowStatus", [&] { return rt::reset_overflow_status(stream); });
}

// The runtime layer catches a NULL outputAddr here (107000), unlike aclrtGetOverflowStatus.
aclError aclrtGetFloatOverflowStatus(void* outputAddr, uint64_t outputSize, aclrtStream stream) {
  return api_call("aclrtGetFloatOverflowStatus", [&] {
    if (outputAddr == nullptr) return rt_param_invalid("outputAddr is NULL");
    return rt::get_overflow_status(outputAddr, outputSize, stream);
  });
}

aclError aclrtResetFloatOverflowStatus(aclrtStream stream) {
  return api_call("aclrtResetFloatOverflowStatus", [&] { return rt::reset_overflow_status(stream); });
}

// checkMode is forwarded unchanged in CANN; ours ignores it (spec part 2, 4.8).
aclError aclrtNpuGetFloatOverFlowStatus(void* outputAddr, uint64_t outputSize, uint32_t checkMode, aclrtStream stream) {
  (void)checkMode;
  return api_call("aclrtNpuGetFloatOverFlowStatus",
                  [&] { return rt::npu_get_float_status(outputAddr, outputSize, stream); });
}

aclError aclrtNpuClearFloatOverFlowStatus(uint32_t checkMode, aclrtStream stream) {
  (void)checkMode;
  return api_call("aclrtNpuClearFloatOverFlowStatus", [&] { return rt::npu_clear_float_status(stream); });
}

// No ACL-level check: a NULL overflowAddr is the runtime's 107000.
aclError aclrtCtxGetFloatOverflowAddr(void** overflowAddr) {
  return api_call("aclrtCtxGetFloatOverflowAddr", [&] {
    if (overflowAddr == nullptr) return rt_param_invalid("overflowAddr is NULL");
    return rt::context_overflow_addr(overflowAddr);
  });
}

}  // extern "C"

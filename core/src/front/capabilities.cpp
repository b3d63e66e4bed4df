// Front door implementation: capability queries (arun/runtime/capabilities.hpp).
#include "arun/runtime/capabilities.hpp"

#include <cstdio>
#include <cstring>
#include <string>

#include "arun/runtime/lifecycle.hpp"
#include "runtime/context.hpp"
#include "runtime/device_slot.hpp"
#include "runtime/runtime.hpp"

namespace arun::rt {
namespace {

// What the runtime knows of each SoC: its architecture generation (kernels built for one SoC run
// on every SoC of the same generation) and two platform features.
struct SocInfo {
  const char* name;
  const char* arch;
  bool inf_nan;
  bool bf16;
};

constexpr SocInfo kSocs[] = {
    {"Ascend310", "dav-m100", false, false},     {"Ascend910A", "dav-c100", false, false},
    {"Ascend910B", "dav-c100", false, false},    {"Ascend910ProA", "dav-c100", false, false},
    {"Ascend910ProB", "dav-c100", false, false}, {"Ascend910PremiumA", "dav-c100", false, false},
    {"Ascend310P1", "dav-m200", false, false},   {"Ascend310P3", "dav-m200", false, false},
    {"Ascend310B1", "dav-m300", false, false},   {"Ascend310B4", "dav-m300", false, false},
    {"Ascend910B1", "dav-c220", true, true},     {"Ascend910B2", "dav-c220", true, true},
    {"Ascend910B2C", "dav-c220", true, true},    {"Ascend910B3", "dav-c220", true, true},
    {"Ascend910B4", "dav-c220", true, true},     {"Ascend910B4-1", "dav-c220", true, true},
    {"Ascend910_9391", "dav-c220", true, true},  {"Ascend910_9381", "dav-c220", true, true},
    {"Ascend910_9392", "dav-c220", true, true},  {"Ascend910_9382", "dav-c220", true, true},
    {"Ascend910_9372", "dav-c220", true, true},  {"Ascend910_9362", "dav-c220", true, true},
    {"Ascend950PR", "dav-c310", true, true},     {"Ascend950DT", "dav-c310", true, true},
};

const SocInfo* find_soc(const std::string& name) {
  for (const SocInfo& s : kSocs) {
    if (name == s.name) return &s;
  }
  return nullptr;
}

// The SoC of device 0, or "" when there is no runtime or no device.
std::string first_soc() {
  Runtime* rt = Runtime::instance();
  if (rt == nullptr || rt->device_count() == 0) return {};
  return rt->device(0)->device()->properties().soc_name;
}

// The attribute arrays aclGetCannAttributeList hands out: library-owned, valid until exit.
constexpr aclCannAttr kJit[] = {ACL_CANN_ATTR_JIT_COMPILE};
constexpr aclCannAttr kBf16Jit[] = {ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};
constexpr aclCannAttr kInfNanJit[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_JIT_COMPILE};
constexpr aclCannAttr kAll[] = {ACL_CANN_ATTR_INF_NAN, ACL_CANN_ATTR_BF16, ACL_CANN_ATTR_JIT_COMPILE};

bool at_least(int major, int minor, int want_major, int want_minor) {
  return major > want_major || (major == want_major && minor >= want_minor);
}

}  // namespace

Status cann_attributes(const aclCannAttr** list, size_t* num) {
  std::string version;
  Status st = package_version("runtime", &version);
  if (!st.ok()) return Status(Errc::internal_error, "cannot read the runtime package version: " + st.message());
  int major = 0, minor = 0;
  if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) {
    return Status(Errc::internal_error, "runtime package version \"" + version + "\" has no major.minor");
  }
  const SocInfo* soc = find_soc(first_soc());
  const bool v71 = at_least(major, minor, 7, 1);
  const bool inf_nan = v71 && soc != nullptr && soc->inf_nan;
  const bool bf16 = v71 && soc != nullptr && soc->bf16;
  const bool jit = at_least(major, minor, 6, 4);
  *list = nullptr;
  *num = 0;
  if (inf_nan && bf16) {
    *list = kAll;
    *num = 3;
  } else if (inf_nan) {
    *list = kInfNanJit;
    *num = 2;
  } else if (bf16) {
    *list = kBf16Jit;
    *num = 2;
  } else if (jit) {
    *list = kJit;
    *num = 1;
  } else {
    *list = kAll;  // a valid pointer to no entries
  }
  return Status::Ok();
}

Status device_feature(int32_t device, int64_t feature, int32_t* value) {
  if (feature != ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV && feature != ACL_FEATURE_SYSTEM_MEMQ_EVENT_CROSS_DEV) {
    return Status(Errc::rt_param_invalid, "devFeatureType " + std::to_string(feature) + " is not a known feature");
  }
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)");
  ARUN_RETURN_IF_ERROR(rt->check_device_id(device));
  // Kernel tasks of model runtime instances are updated in place (aclrtTaskUpdateAsync,
  // aclmdlRIUpdate); the simulated devices have no queue events.
  *value =
      feature == ACL_FEATURE_TSCPU_TASK_UPDATE_SUPPORT_AIC_AIV ? ACL_DEV_FEATURE_SUPPORT : ACL_DEV_FEATURE_NOT_SUPPORT;
  return Status::Ok();
}

Status check_arch_compatibility(const char* soc, int32_t* compatible) {
  if (soc[0] == '\0') return Status(Errc::rt_param_invalid, "socVersion is empty");
  const SocInfo* theirs = find_soc(soc);
  if (theirs == nullptr) {
    return Status(Errc::rt_param_invalid, std::string("socVersion \"") + soc + "\" is not a SoC this runtime knows");
  }
  Runtime* rt = Runtime::instance();
  if (rt == nullptr) return Status(Errc::uninitialized, "aclInit has not been called (or aclFinalize was)");
  std::string current;
  if (Context* ctx = rt->current_context()) {
    current = ctx->slot()->device()->properties().soc_name;
  } else {
    current = first_soc();
    if (current.empty()) return Status(Errc::rt_no_device, "no device plugin provides a device");
  }
  const SocInfo* ours = find_soc(current);
  *compatible = ours != nullptr ? (std::strcmp(ours->arch, theirs->arch) == 0 ? 1 : 0) : (current == soc ? 1 : 0);
  return Status::Ok();
}

}  // namespace arun::rt

// Front door: software and SoC capability queries (spec part 2, 4.1: aclGetCannAttributeList,
// aclGetCannAttribute, aclrtGetDeviceCapability, aclrtCheckArchCompatibility). See
// front_door.hpp for the conventions.
//
// The SoC table (capabilities.cpp) names the SoCs the runtime knows, their architecture generation
// and whether they support INF/NaN mode and bf16 (CANN's platform descriptions' `support_inf_nan`
// and `support_bf16`). A device whose SoC the table does not know (the null device) supports
// neither and is compatible only with its own name.
#pragma once

#include <cstddef>
#include <cstdint>

#include "acl/acl_base_rt.h"
#include "acl/acl_rt.h"
#include "arun/core/status.hpp"

namespace arun::rt {

// aclGetCannAttributeList (outputs non-NULL): a static array, ascending. An attribute is listed when
// the installed `runtime` package's major.minor (share/info/runtime/version.info next to the
// library) reaches its minimum (INF_NAN 7.1, BF16 7.1, JIT_COMPILE 6.4) and, for INF_NAN and BF16,
// the SoC of device 0 supports it (no runtime or no device: JIT_COMPILE only). Works before aclInit.
// Errors: internal_error (the version file is missing or has no major.minor).
Status cann_attributes(const aclCannAttr** list, size_t* num);

// aclrtGetDeviceCapability (`value` non-NULL): `feature` the raw aclrtDevFeatureType. Neither
// feature exists on the simulated devices (no in-place task update, no queue events): both report
// ACL_DEV_FEATURE_NOT_SUPPORT. Errors: rt_param_invalid (feature not 1 or 21), rt_invalid_device_id.
Status device_feature(int32_t device, int64_t feature, int32_t* value);

// aclrtCheckArchCompatibility (both non-NULL): 1 when `soc` and the current SoC (the current
// device's, else device 0's) belong to the same architecture generation. Errors: rt_param_invalid
// (empty or unknown SoC name), rt_no_device.
Status check_arch_compatibility(const char* soc, int32_t* compatible);

}  // namespace arun::rt

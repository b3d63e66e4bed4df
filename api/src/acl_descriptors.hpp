// The layouts behind the opaque descriptor types of acl_base_rt.h / acl_base_mdl.h / acl_op.h.
// User code only holds pointers to them; the op and model layers read them here.
#pragma once

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_mdl.h"
#include "arun/ops/op.hpp"

struct aclDataBuffer {
  void* data = nullptr;
  size_t size = 0;
};

struct aclTensorDesc {
  aclDataType dtype = ACL_DT_UNDEFINED;
  aclFormat format = ACL_FORMAT_UNDEFINED;
  std::vector<int64_t> dims;
  bool unknown_rank = false;  // created from the single dimension -2
};

struct aclopAttr {
  arun::ops::Attrs attrs;
};

// Model inputs or outputs in index order; the buffers are the caller's (not owned).
struct aclmdlDataset {
  std::vector<aclDataBuffer*> buffers;
  std::vector<aclTensorDesc*> descs;  // aclmdlSetDatasetTensorDesc, by index (NULL = none); the caller's
};

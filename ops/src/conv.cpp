#include "kernel_common.hpp"

namespace arun::ops {

void register_conv(std::vector<OpDef>& defs) {}

}  // namespace arun::ops

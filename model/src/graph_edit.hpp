// Editing an imported graph in place, and what the load-time fusion passes share. Private to the model
// library.
#pragma once

#include <vector>

#include "arun/model/graph.hpp"

namespace arun::model::detail {

// Drops the nodes marked in `dropped` (one flag per node) and the intermediates no remaining node
// reads or writes, then renumbers the tensors and rebuilds every producer and consumer list.
// Graph inputs and weights stay even when unread: the caller binds inputs by position.
void drop_nodes(Graph* g, const std::vector<bool>& dropped);

// The activation types the fused kernels take.
inline bool fusable_type(aclDataType t) {
  return t == ACL_FLOAT || t == ACL_FLOAT16;
}

}  // namespace arun::model::detail

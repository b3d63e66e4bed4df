// Front door implementation: profiling (arun/runtime/profiling.hpp).
#include "arun/runtime/profiling.hpp"

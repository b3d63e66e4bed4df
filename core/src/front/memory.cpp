// Front door implementation: memory (arun/runtime/memory.hpp).
#include "arun/runtime/memory.hpp"

// Front door implementation: launch (arun/runtime/launch.hpp).
#include "arun/runtime/launch.hpp"

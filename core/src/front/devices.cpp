// Front door implementation: devices (arun/runtime/devices.hpp).
#include "arun/runtime/devices.hpp"

// Front door implementation: models (arun/runtime/models.hpp).
#include "arun/runtime/models.hpp"

// Front door: models (filled by the front-door refactor; see front_door.hpp for the conventions).
#pragma once

#include "arun/runtime/call.hpp"

namespace arun::rt {}  // namespace arun::rt

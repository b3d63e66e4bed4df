// HostServices: what the core offers every plugin — logging into the runtime's logger, and a check
// of device ranges against the blocks the program holds.
#pragma once

#include <cstdint>

#include "arun/plugin/device.hpp"

namespace arun {

plugin::HostServices* host_services();

// Installed by the runtime while an allocator policy that carves blocks out of device allocations
// is in use; nullptr: the device's own check of its allocations is exact.
using MemoryLiveCheck = bool (*)(const plugin::Device* device, uint64_t addr, uint64_t bytes);
void set_memory_live_check(MemoryLiveCheck check);

}  // namespace arun

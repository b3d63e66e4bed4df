// HostServices: what the core offers every plugin — logging into the runtime's logger, and a check
// of device ranges against the blocks the program holds.
#pragma once

#include <cstdint>

#include "arun/plugin/device.hpp"

namespace arun {

plugin::HostServices* host_services();

// Installed by the runtime while it is initialised; nullptr: only the device's own check counts.
using MemoryLiveCheck = bool (*)(const plugin::Device* device, uint64_t addr, uint64_t bytes);
void set_memory_live_check(MemoryLiveCheck check);
// Installed likewise: HostServices::host_mapped; nullptr: no host memory is mapped.
using HostMappedCheck = bool (*)(uint64_t addr, uint64_t bytes);
void set_host_mapped_check(HostMappedCheck check);
// Installed likewise: HostServices::vmm_map; nullptr: nothing is mapped.
using VmmMapCheck = void* (*)(const plugin::Device* device, uint64_t addr, uint64_t bytes);
void set_vmm_map_check(VmmMapCheck check);

}  // namespace arun

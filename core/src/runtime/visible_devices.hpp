// ASCEND_RT_VISIBLE_DEVICES: which of the configured devices a process sees, and their renumbering.
#pragma once

#include <cstdint>
#include <vector>

namespace arun {

// The physical device ids (indices into the devices the device plugins provide, in plugin order)
// that are visible, in the order they get logical ids 0, 1, ... `text` is the variable's value:
// NULL or "" makes all `physical_count` devices visible. Otherwise it is read as CANN reads it:
// decimal ids separated by commas, in ascending order; reading stops at the first token that is not
// a plain decimal number (" 2", "2a", ""), names no device (>= physical_count) or does not ascend,
// and the ids before it are the visible ones (possibly none).
std::vector<uint32_t> visible_devices(const char* text, uint32_t physical_count);

}  // namespace arun

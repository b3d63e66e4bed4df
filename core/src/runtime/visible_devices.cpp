#include "runtime/visible_devices.hpp"

namespace arun {

std::vector<uint32_t> visible_devices(const char* text, uint32_t physical_count) {
  std::vector<uint32_t> ids;
  if (text == nullptr || text[0] == '\0') {
    for (uint32_t i = 0; i < physical_count; ++i) ids.push_back(i);
    return ids;
  }
  const char* p = text;
  while (true) {
    // One token: digits up to a comma or the end; anything else ends the list.
    uint64_t id = 0;
    const char* start = p;
    while (*p >= '0' && *p <= '9') {
      id = id * 10 + static_cast<uint64_t>(*p - '0');
      if (id >= physical_count) break;  // also bounds the value: no overflow on long digit runs
      ++p;
    }
    const bool token_ok = p != start && (*p == ',' || *p == '\0') && id < physical_count;
    if (!token_ok || (!ids.empty() && id <= ids.back())) break;
    ids.push_back(static_cast<uint32_t>(id));
    if (*p == '\0') break;
    ++p;  // the comma
  }
  return ids;
}

}  // namespace arun

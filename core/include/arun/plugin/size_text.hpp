// Byte sizes written the way option values are written ("2MiB", "512KiB", "1000"), for plugins'
// option descriptions and messages. Header-only: plugins use it without linking the core.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace arun::plugin {

inline std::string size_text(uint64_t bytes) {
  char buf[32];
  if (bytes != 0 && bytes % (1ull << 20) == 0) {
    std::snprintf(buf, sizeof buf, "%lluMiB", static_cast<unsigned long long>(bytes >> 20));
  } else if (bytes != 0 && bytes % 1024 == 0) {
    std::snprintf(buf, sizeof buf, "%lluKiB", static_cast<unsigned long long>(bytes >> 10));
  } else {
    std::snprintf(buf, sizeof buf, "%llu", static_cast<unsigned long long>(bytes));
  }
  return buf;
}

}  // namespace arun::plugin

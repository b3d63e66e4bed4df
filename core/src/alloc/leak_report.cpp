#include "alloc/leak_report.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <functional>
#include <map>

#include "alloc/device_allocator.hpp"

namespace arun {

namespace {

// "function+0x1c (library)" for a return address, or the raw address when nothing is known.
std::string describe_site(const void* site) {
  char buf[512];
  Dl_info info{};
  if (site != nullptr && dladdr(site, &info) != 0) {
    const char* lib = info.dli_fname != nullptr ? info.dli_fname : "?";
    if (info.dli_sname != nullptr) {
      std::snprintf(buf, sizeof buf, "%s+0x%tx (%s)", info.dli_sname,
                    static_cast<const char*>(site) - static_cast<const char*>(info.dli_saddr), lib);
    } else {
      // No exported symbol (an executable built without -rdynamic): say how to look it up.
      const ptrdiff_t off = static_cast<const char*>(site) - static_cast<const char*>(info.dli_fbase);
      std::snprintf(buf, sizeof buf, "%s+0x%tx (addr2line -f -e %s 0x%tx)", lib, off, lib, off);
    }
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%p", site);
  return buf;
}

std::string id_list(const std::vector<LeakReport::Handle>& handles, int32_t device) {
  std::string out;
  for (const auto& h : handles) {
    if (h.device != device) continue;
    if (!out.empty()) out += ", ";
    out += std::to_string(h.id);
  }
  return out;
}

}  // namespace

std::string LeakReport::format(const std::string& when, bool call_sites) const {
  std::string out = "leak report at " + when + ": the program did not release";
  // Memory, one group per device (pinned host memory last), largest blocks first.
  std::map<int32_t, std::vector<const Memory*>, std::greater<int32_t>> by_device;  // devices, then pinned (-1)
  for (const Memory& m : memory) by_device[m.device].push_back(&m);
  constexpr size_t kListed = 10;
  for (auto& [device, blocks] : by_device) {
    std::sort(blocks.begin(), blocks.end(), [](const Memory* a, const Memory* b) { return a->bytes > b->bytes; });
    uint64_t total = 0;
    for (const Memory* m : blocks) total += m->bytes;
    out += "\n  " +
           (device < 0 ? std::string("pinned host memory (aclrtMallocHost)")
                       : "device " + std::to_string(device) + " memory (aclrtMalloc)") +
           ": " + std::to_string(blocks.size()) + (blocks.size() == 1 ? " block, " : " blocks, ") + human_bytes(total);
    for (size_t i = 0; i < blocks.size() && i < kListed; ++i) {
      char line[96];
      std::snprintf(line, sizeof line, "\n    0x%" PRIx64 "  %" PRIu64 " bytes", blocks[i]->addr, blocks[i]->bytes);
      out += line;
      if (call_sites) out += "  allocated at " + describe_site(blocks[i]->site);
    }
    if (blocks.size() > kListed) out += "\n    ... and " + std::to_string(blocks.size() - kListed) + " more";
  }
  std::map<int32_t, int> devices;
  for (const auto& s : streams) ++devices[s.device];
  for (auto& [device, n] : devices) {
    out += "\n  device " + std::to_string(device) + ": " + std::to_string(n) + (n == 1 ? " stream" : " streams") +
           " never destroyed (ids " + id_list(streams, device) + ")";
  }
  devices.clear();
  for (const auto& e : events) ++devices[e.device];
  for (auto& [device, n] : devices) {
    out += "\n  device " + std::to_string(device) + ": " + std::to_string(n) + (n == 1 ? " event" : " events") +
           " never destroyed";
  }
  devices.clear();
  for (const auto& c : contexts) ++devices[c.device];
  for (auto& [device, n] : devices) {
    out += "\n  device " + std::to_string(device) + ": " + std::to_string(n) + (n == 1 ? " context" : " contexts") +
           " never destroyed (aclrtCreateContext without aclrtDestroyContext)";
  }
  for (int32_t d : devices_left_set) {
    out += "\n  device " + std::to_string(d) + " still set (aclrtSetDevice without aclrtResetDevice)";
  }
  if (!call_sites && !memory.empty())
    out += "\n  (set [runtime] leak_call_sites = true to see where each block was allocated)";
  return out;
}

}  // namespace arun

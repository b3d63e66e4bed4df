// One source, several broken plugins: each BROKEN_* definition breaks the descriptor in one way.
#include <cstring>

#include "arun/plugin/device.hpp"

using namespace arun::plugin;

namespace {

PluginObject* fail_factory(HostServices*, const OptionValues*, char* error, size_t size) {
  std::strncpy(error, "the broken plugin refuses to start on purpose", size - 1);
  return nullptr;
}

constexpr uint32_t magic() {
#ifdef BROKEN_BAD_MAGIC
  return 0xdeadbeefu;
#else
  return kPluginMagic;
#endif
}
constexpr uint16_t abi_major() {
#ifdef BROKEN_ABI_MAJOR_MISMATCH
  return kAbiMajor + 1;
#else
  return kAbiMajor;
#endif
}
constexpr uint16_t abi_minor() {
#ifdef BROKEN_ABI_MINOR_NEWER
  return kAbiMinor + 1;
#else
  return kAbiMinor;
#endif
}
constexpr uint32_t struct_size() {
#ifdef BROKEN_TRUNCATED
  return 16;
#else
  return sizeof(PluginDescriptor);
#endif
}
constexpr PluginKind kind() {
#ifdef BROKEN_WRONG_KIND
  return PluginKind::Profiler;
#else
  return PluginKind::Device;
#endif
}

const PluginDescriptor kDescriptor{magic(), abi_major(), abi_minor(), struct_size(), kind(), "broken", "0.0.1",
                                   "test",  "a deliberately broken plugin", nullptr, 0, &fail_factory};

}  // namespace

#ifndef BROKEN_NO_DESCRIPTOR
ARUN_DECLARE_PLUGIN(kDescriptor)
#else
// Keeps the descriptor referenced so the library is otherwise a normal plugin.
extern "C" __attribute__((visibility("default"))) const void* arun_something_else = &kDescriptor;
#endif

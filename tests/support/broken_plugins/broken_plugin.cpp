// One source, several broken plugins: each BROKEN_* definition breaks the descriptor in one way.
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "arun/plugin/device.hpp"
#include "arun/plugin/plugin_abi.hpp"

using namespace arun::plugin;

namespace {

PluginObject* fail_factory(HostServices*, const OptionValues*, char* error, size_t size) {
#if defined(BROKEN_THROWING_FACTORY)
  (void)error, (void)size;
  throw std::runtime_error("the broken plugin throws on purpose");
#elif defined(BROKEN_UNTERMINATED_ERROR)
  // Fills the whole buffer it was given, without a terminating NUL.
  std::memset(error, 'x', size);
  return nullptr;
#else
  std::strncpy(error, "the broken plugin refuses to start on purpose", size - 1);
  return nullptr;
#endif
}

#ifdef BROKEN_MARKER
// Leaves a line in $ARUN_TEST_PLUGIN_MARKER when the library is loaded: a test that never selects
// this plugin proves it was never dlopen'ed.
__attribute__((constructor)) void leave_marker() {
  if (const char* file = std::getenv("ARUN_TEST_PLUGIN_MARKER")) {
    if (FILE* f = std::fopen(file, "a")) {
      std::fputs("loaded\n", f);
      std::fclose(f);
    }
  }
}
#endif

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
#if defined(BROKEN_WRONG_KIND) || defined(BROKEN_MARKER)
  return PluginKind::Profiler;
#else
  return PluginKind::Device;
#endif
}

#ifdef BROKEN_MARKER
constexpr const char* kName = "marker";
#else
constexpr const char* kName = "broken";
#endif

const PluginDescriptor kDescriptor{
    magic(), abi_major(), abi_minor(),  struct_size(), kind(), kName, "0.0.1", "test", "a deliberately broken plugin",
    nullptr, 0,           &fail_factory};

}  // namespace

// clang's ASan pads instrumented globals and counts the padding in the symbol's size; the loader
// must see these symbols' sizes as written.
#if defined(__clang__)
#define AS_WRITTEN __attribute__((no_sanitize("address")))
#else
#define AS_WRITTEN
#endif

#if defined(BROKEN_DESCRIPTOR_FUNCTION)
// The descriptor symbol is a function, not the data object ARUN_DECLARE_PLUGIN makes.
extern "C" __attribute__((visibility("default"))) const void* arun_plugin_descriptor() {
  return &kDescriptor;
}
#elif defined(BROKEN_DESCRIPTOR_WRONG_SIZE)
// Data, but not a pointer's size.
extern "C" __attribute__((visibility("default"))) AS_WRITTEN const uint32_t arun_plugin_descriptor = 0x4e555241u;
#elif defined(BROKEN_DESCRIPTOR_NULL)
// A pointer, but null.
extern "C" __attribute__((visibility("default"))) AS_WRITTEN const void* const arun_plugin_descriptor = nullptr;
extern "C" __attribute__((visibility("default"))) const void* arun_keep_descriptor = &kDescriptor;
#elif !defined(BROKEN_NO_DESCRIPTOR)
ARUN_DECLARE_PLUGIN(kDescriptor)
#else
// Keeps the descriptor referenced so the library is otherwise a normal plugin.
extern "C" __attribute__((visibility("default"))) const void* arun_something_else = &kDescriptor;
#endif

// The plugin descriptor and the types the core and every plugin share across the boundary (the
// rules are in plugin_abi.hpp). Free of Boost.DLL: the core's files include this one, and only a
// plugin's entry file includes plugin_abi.hpp for ARUN_DECLARE_PLUGIN.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

namespace arun::plugin {

inline constexpr uint32_t kPluginMagic = 0x4e555241u;  // "ARUN" in little-endian byte order
inline constexpr uint16_t kAbiMajor = 1;
// Minor 1: Work::cancel (devices built against minor 0 never read it and run work to the end).
// Minor 2: scheduler plugins (scheduler.hpp).
// Minor 3: allocator plugins (allocator.hpp); HostServices::memory_live.
// Minor 4: profiler sinks (profiler.hpp).
// Minor 5: Work::max_compute_units (core-count resource limits) and
//          HostServices::host_mapped (host memory device code may reach).
// Minor 6: virtual memory management: Device::physical_memory (PhysicalMemorySource, device.hpp)
//          and HostServices::vmm_map (mapped virtual ranges device code may reach). The core
//          calls physical_memory() only on devices of plugins built against minor 6 or later.
// Minor 7: ChunkSource::virtual_ranges (allocator.hpp): growable device ranges for allocator
//          policies (the caching policy's expandable segments).
// Minor 8: collective plugins (collective.hpp): the transport between processes for libhccl.
// Minor 9: Work::helper_units (the compute units that ran blocks of a kernel besides its own).
// Minor 10: WorkResult::message (why work failed; the next synchronize of its stream reports it).
//           The core reads it only from devices of plugins built against minor 10 or later.
//           Also RecordKind::GraphLaunch (profiler.hpp), which older sinks skip as an unknown kind.
inline constexpr uint16_t kAbiMinor = 10;

enum class PluginKind : uint32_t {
  Device = 1,
  Allocator = 2,
  Profiler = 3,
  Scheduler = 4,
  Collective = 5,
};

const char* kind_name(PluginKind kind);  // "device", "allocator", ... (defined in the core)

// ---- Options: plugins declare a schema, the core validates the TOML table against it. ----

enum class OptionType : uint32_t { Integer, Float, Boolean, String, Bytes };

// One option a plugin accepts. For Integer/Float/Bytes, [min, max] is inclusive.
// Bytes accepts an integer or a string with a unit suffix ("16GiB", "512MiB", "4096").
// default_value is written in TOML syntax ("2", "true", "\"Ascend910B3\"", "\"16GiB\"").
struct OptionSpec {
  const char* key;
  OptionType type;
  double min;
  double max;
  const char* default_value;
  const char* help;
};

using OptionValue = std::variant<int64_t, double, bool, std::string>;

// Validated option values: every key of the schema is present (defaults filled in);
// Bytes options are stored as int64_t byte counts.
class OptionValues {
 public:
  void set(std::string key, OptionValue value) { values_[std::move(key)] = std::move(value); }
  bool has(std::string_view key) const { return values_.find(std::string(key)) != values_.end(); }
  int64_t get_int(std::string_view key, int64_t fallback = 0) const { return get<int64_t>(key, fallback); }
  double get_double(std::string_view key, double fallback = 0) const { return get<double>(key, fallback); }
  bool get_bool(std::string_view key, bool fallback = false) const { return get<bool>(key, fallback); }
  std::string get_string(std::string_view key, std::string fallback = {}) const {
    return get<std::string>(key, std::move(fallback));
  }
  const std::map<std::string, OptionValue>& all() const { return values_; }

 private:
  template <class T>
  T get(std::string_view key, T fallback) const {
    auto it = values_.find(std::string(key));
    if (it == values_.end()) return fallback;
    if (auto* v = std::get_if<T>(&it->second)) return *v;
    return fallback;
  }
  std::map<std::string, OptionValue> values_;
};

// ---- Services the core provides to plugins. ----

enum class LogLevel : int { Debug = 0, Info = 1, Warning = 2, Error = 3, Off = 4 };

class Device;

class HostServices {
 public:
  virtual void log(LogLevel level, std::string_view source, std::string_view message) = 0;
  virtual bool log_enabled(LogLevel level) const = 0;
  // Is [addr, addr + bytes) of `device` inside a block the program holds? A device asks after its
  // own check of its allocations, whenever a copy or kernel touches device memory: an allocator
  // policy may carve many program blocks out of one device allocation and keep freed blocks
  // cached, and a freed block must fault although its device allocation lives on.
  virtual bool memory_live(const Device* device, uint64_t addr, uint64_t bytes) {
    (void)device, (void)addr, (void)bytes;
    return true;
  }
  // Host memory device code may reach (ABI minor 5): [addr, addr + bytes) lies inside a host range
  // registered as mapped (aclrtHostRegister, ACL_HOST_REG_MAPPED) or a managed allocation
  // (aclrtMemAllocManaged). A device asks when an address is none of its own; the range is then
  // the host's own memory, used in place.
  virtual bool host_mapped(uint64_t addr, uint64_t bytes) {
    (void)addr, (void)bytes;
    return false;
  }
  // Virtual memory (ABI minor 6): the host view of [addr, addr + bytes) when it lies in mapped
  // virtual ranges (aclrtReserveMemAddress + aclrtMapMem) that `device` has access to, else
  // nullptr. A device asks when an address is none of its own.
  virtual void* vmm_map(const Device* device, uint64_t addr, uint64_t bytes) {
    (void)device, (void)addr, (void)bytes;
    return nullptr;
  }

 protected:
  ~HostServices() = default;
};

// Every object a factory returns derives from PluginObject; the core destroys it through this
// virtual destructor while still holding the plugin's library.
class PluginObject {
 public:
  virtual ~PluginObject() = default;
};

// Factory: returns a new object of the kind's interface, or nullptr with a reason in `error`
// (NUL-terminated, at most error_size bytes).
using FactoryFn = PluginObject* (*)(HostServices* host, const OptionValues* options, char* error, size_t error_size);

struct PluginDescriptor {
  uint32_t magic;
  uint16_t abi_major;
  uint16_t abi_minor;
  uint32_t struct_size;
  PluginKind kind;
  const char* name;
  const char* version;
  const char* build_id;
  const char* description;
  const OptionSpec* options;
  uint32_t option_count;
  FactoryFn create;
};

}  // namespace arun::plugin

// Convenience for a descriptor's header fields; usage:
//   const arun::plugin::PluginDescriptor kDesc{ARUN_PLUGIN_HEADER, PluginKind::Device, "ascend", ...};
#define ARUN_PLUGIN_HEADER                                                            \
  ::arun::plugin::kPluginMagic, ::arun::plugin::kAbiMajor, ::arun::plugin::kAbiMinor, \
      static_cast<uint32_t>(sizeof(::arun::plugin::PluginDescriptor))

// The `caching` allocator plugin: its option schema, and the factory the core calls once per
// device (through AllocatorPlugin::create).
#include <cstdio>
#include <new>

#include "arun/plugin/plugin_abi.hpp"

#include "caching_policy.hpp"

namespace arun::caching {
namespace {

using plugin::OptionSpec;
using plugin::OptionType;

constexpr double kMaxBytes = 9.0e15;  // far beyond any device; keeps the schema's doubles exact

const OptionSpec kOptions[] = {
    {"round", OptionType::Bytes, 64, 1 << 20, "512", "blocks are rounded up to a multiple of this (a power of two)"},
    {"small_size", OptionType::Bytes, 512, kMaxBytes, "\"1MiB\"", "requests up to this size use the small pool"},
    {"small_chunk", OptionType::Bytes, 512, kMaxBytes, "\"2MiB\"", "chunk size the small pool takes from the device"},
    {"large_chunk", OptionType::Bytes, 1024, kMaxBytes, "\"20MiB\"",
     "chunk size the large pool takes for requests up to this size"},
    {"large_round", OptionType::Bytes, 512, kMaxBytes, "\"2MiB\"",
     "larger requests get a chunk of their size rounded up to this"},
    {"max_split", OptionType::Bytes, 0, kMaxBytes, "0",
     "blocks above this size are never split (0: no limit; else at least large_chunk)"},
    {"release_threshold", OptionType::Bytes, 0, kMaxBytes, "0",
     "cached free memory above this goes back to the device on free (0: keep it)"},
    {"gc_threshold", OptionType::Float, 0, 1, "0.0",
     "keep the reserve under this fraction of memory_limit by dropping cached chunks (0: off)"},
    {"memory_limit", OptionType::Bytes, 0, kMaxBytes, "0", "most memory the allocator reserves (0: the device's)"},
    {"reclaim_on_miss", OptionType::Boolean, 0, 1, "true",
     "a large request no cached block fits first returns whole free large chunks to the device"},
    {"expandable_segments", OptionType::Boolean, 0, 1, "false",
     "requests above small_size come from one device range that grows by mapping pages at its end"},
};

class CachingPlugin final : public plugin::AllocatorPlugin {
 public:
  CachingPlugin(const CachingOptions& o, plugin::HostServices* host) : options_(o), host_(host) {}
  plugin::AllocatorPolicy* create(plugin::ChunkSource* source, plugin::StreamOrder* order, char* error,
                                  size_t error_size) override {
    auto* p = new (std::nothrow) CachingPolicy(source, order, options_);
    if (p == nullptr) std::snprintf(error, error_size, "out of host memory");
    if (p != nullptr && options_.expandable_segments && !p->expandable() && host_ != nullptr) {
      // As PyTorch on a driver without virtual memory: carry on with ordinary chunks, but say so.
      host_->log(plugin::LogLevel::Warning, "caching",
                 "expandable_segments is on, but this device has no physical memory to map "
                 "(no virtual memory support): large blocks use ordinary chunks");
    }
    return p;
  }

 private:
  CachingOptions options_;
  plugin::HostServices* host_;
};

plugin::PluginObject* create(plugin::HostServices* host, const plugin::OptionValues* values, char* error,
                             size_t error_size) {
  CachingOptions o;
  auto bytes = [&](const char* key, uint64_t* field) { *field = static_cast<uint64_t>(values->get_int(key, *field)); };
  bytes("round", &o.round);
  bytes("small_size", &o.small_size);
  bytes("small_chunk", &o.small_chunk);
  bytes("large_chunk", &o.large_chunk);
  bytes("large_round", &o.large_round);
  bytes("max_split", &o.max_split);
  bytes("release_threshold", &o.release_threshold);
  bytes("memory_limit", &o.memory_limit);
  o.gc_threshold = values->get_double("gc_threshold", o.gc_threshold);
  o.reclaim_on_miss = values->get_bool("reclaim_on_miss", o.reclaim_on_miss);
  o.expandable_segments = values->get_bool("expandable_segments", o.expandable_segments);
  std::string why;
  if (!o.validate(&why)) {
    std::snprintf(error, error_size, "%s", why.c_str());
    return nullptr;
  }
  return new (std::nothrow) CachingPlugin(o, host);
}

}  // namespace

extern const plugin::PluginDescriptor kCachingDescriptor;
const plugin::PluginDescriptor kCachingDescriptor{ARUN_PLUGIN_HEADER,
                                                  plugin::PluginKind::Allocator,
                                                  "caching",
                                                  "0.1.0",
                                                  "",
                                                  "stream-ordered caching allocator with block splitting and merging",
                                                  kOptions,
                                                  sizeof kOptions / sizeof kOptions[0],
                                                  &create};

}  // namespace arun::caching

ARUN_DECLARE_PLUGIN(arun::caching::kCachingDescriptor)

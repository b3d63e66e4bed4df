// The `bins` allocator plugin: option schema and factory.
#include <cstdio>
#include <new>

#include "arun/plugin/plugin_abi.hpp"

#include "bins_policy.hpp"

namespace arun::bins {
namespace {

using plugin::OptionSpec;
using plugin::OptionType;

constexpr double kMaxBytes = 9.0e15;

const OptionSpec kOptions[] = {
    {"max_bin", OptionType::Bytes, 512, kMaxBytes, "\"4MiB\"", "largest request served from the size classes"},
    {"slab", OptionType::Bytes, 512, kMaxBytes, "\"2MiB\"", "bytes a size class takes from the device at a time"},
    {"release_threshold", OptionType::Bytes, 0, kMaxBytes, "0",
     "empty slabs go back to the device when cached free memory exceeds this (0: only on trim)"},
};

class BinsPlugin final : public plugin::AllocatorPlugin {
 public:
  explicit BinsPlugin(const BinsOptions& o) : options_(o) {}
  plugin::AllocatorPolicy* create(plugin::ChunkSource* source, plugin::StreamOrder* order, char* error,
                                  size_t error_size) override {
    auto* p = new (std::nothrow) BinsPolicy(source, order, options_);
    if (p == nullptr) std::snprintf(error, error_size, "out of host memory");
    return p;
  }

 private:
  BinsOptions options_;
};

plugin::PluginObject* create(plugin::HostServices*, const plugin::OptionValues* values, char* error,
                             size_t error_size) {
  BinsOptions o;
  o.max_bin = static_cast<uint64_t>(values->get_int("max_bin", int64_t(o.max_bin)));
  o.slab = static_cast<uint64_t>(values->get_int("slab", int64_t(o.slab)));
  o.release_threshold = static_cast<uint64_t>(values->get_int("release_threshold", 0));
  std::string why;
  if (!o.validate(&why)) {
    std::snprintf(error, error_size, "%s", why.c_str());
    return nullptr;
  }
  return new (std::nothrow) BinsPlugin(o);
}

}  // namespace

extern const plugin::PluginDescriptor kBinsDescriptor;
const plugin::PluginDescriptor kBinsDescriptor{ARUN_PLUGIN_HEADER,
                                               plugin::PluginKind::Allocator,
                                               "bins",
                                               "0.1.0",
                                               "",
                                               "size-class bins over slabs: O(1) allocate and free, no splitting",
                                               kOptions,
                                               sizeof kOptions / sizeof kOptions[0],
                                               &create};

}  // namespace arun::bins

ARUN_DECLARE_PLUGIN(arun::bins::kBinsDescriptor)

// The plugin loader against purpose-built broken plugins and the null device plugin.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "arun/plugin/device.hpp"
#include "plugins/plugin_loader.hpp"

using namespace arun;

namespace {

std::string broken(const std::string& variant) {
  return std::string(ARUN_BROKEN_PLUGIN_DIR) + "/libarun_device_" + variant + ".so";
}

Status load(const std::string& path, LoadedPlugin* out = nullptr) {
  LoadedPlugin tmp;
  return load_plugin_library(path, nullptr, nullptr, out ? out : &tmp);
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace

TEST(Loader, MissingFileIsInvalidFile) {
  Status st = load("/nonexistent/libarun_device_x.so");
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "/nonexistent/libarun_device_x.so")) << st.message();
  EXPECT_TRUE(contains(st.message(), "does not exist")) << st.message();
}

TEST(Loader, NotASharedLibrary) {
  Status st = load(broken("not_elf"));
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), broken("not_elf"))) << st.message();
  EXPECT_TRUE(contains(st.message(), "cannot load plugin")) << st.message();
}

TEST(Loader, MissingDescriptorSymbol) {
  Status st = load(broken("no_descriptor"));
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "arun_plugin_descriptor")) << st.message();
  EXPECT_TRUE(contains(st.message(), broken("no_descriptor"))) << st.message();
}

TEST(Loader, BadMagic) {
  Status st = load(broken("bad_magic"));
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "magic")) << st.message();
}

TEST(Loader, AbiMajorMismatchNamesBothVersionsAndTheFile) {
  Status st = load(broken("abi_major_mismatch"));
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  const std::string theirs = std::to_string(plugin::kAbiMajor + 1) + "." + std::to_string(plugin::kAbiMinor);
  const std::string ours = std::to_string(plugin::kAbiMajor) + "." + std::to_string(plugin::kAbiMinor);
  EXPECT_TRUE(contains(st.message(), "ABI " + theirs)) << st.message();
  EXPECT_TRUE(contains(st.message(), "ABI " + ours)) << st.message();
  EXPECT_TRUE(contains(st.message(), broken("abi_major_mismatch"))) << st.message();
}

TEST(Loader, NewerAbiMinorIsRefused) {
  Status st = load(broken("abi_minor_newer"));
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), std::to_string(plugin::kAbiMajor) + "." + std::to_string(plugin::kAbiMinor + 1)))
      << st.message();
}

TEST(Loader, TruncatedDescriptor) {
  Status st = load(broken("truncated"));
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "truncated")) << st.message();
}

TEST(Loader, KindAndNameMustMatchTheConfig) {
  LoadedPlugin out;
  auto device = plugin::PluginKind::Device;
  Status st = load_plugin_library(broken("wrong_kind"), &device, nullptr, &out);
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "profiler plugin")) << st.message();
  std::string name = "null";
  st = load_plugin_library(broken("factory_fails"), &device, &name, &out);
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "\"broken\"")) << st.message();
}

TEST(Loader, FactoryFailureCarriesThePluginsReason) {
  LoadedPlugin loaded;
  ASSERT_TRUE(load(broken("factory_fails"), &loaded).ok());
  std::shared_ptr<plugin::DevicePlugin> object;
  Status st = create_plugin_object(loaded, plugin::OptionValues{}, &object);
  EXPECT_FALSE(st.ok());
  EXPECT_EQ(object, nullptr);
  EXPECT_TRUE(contains(st.message(), "refuses to start on purpose")) << st.message();
}

TEST(Loader, EntryNotFoundListsWhereItLooked) {
  PluginEntry entry;
  entry.kind = plugin::PluginKind::Device;
  entry.name = "nothere";
  entry.origin = "test.toml: plugin[0]";
  LoadedPlugin out;
  std::vector<std::string> tried;
  Status st = load_plugin_entry(entry, {"/tmp/arun-no-such-dir"}, &out, &tried);
  EXPECT_EQ(st.code(), Errc::invalid_file);
  ASSERT_GE(tried.size(), 2u);
  EXPECT_EQ(tried[0], "/tmp/arun-no-such-dir/libarun_device_nothere.so");
  EXPECT_TRUE(contains(st.message(), "test.toml: plugin[0]")) << st.message();
  EXPECT_TRUE(contains(st.message(), tried[0])) << st.message();
}

TEST(Loader, ProbeDescribesGoodAndBadLibraries) {
  auto probes = probe_plugin_dir(ARUN_BROKEN_PLUGIN_DIR);
  ASSERT_GE(probes.size(), 7u);
  int rejected = 0;
  for (const auto& p : probes) {
    if (!p.ok) {
      ++rejected;
      EXPECT_FALSE(p.reason.empty()) << p.path;
    }
  }
  // Every broken variant but factory_fails and wrong_kind has a bad descriptor or none.
  EXPECT_GE(rejected, 6);
  PluginProbe null_probe = probe_plugin_file(ARUN_NULL_PLUGIN);
  EXPECT_TRUE(null_probe.ok) << null_probe.reason;
  EXPECT_EQ(null_probe.kind, "device");
  EXPECT_EQ(null_probe.name, "null");
}

TEST(Loader, ObjectsKeepTheirLibraryLoaded) {
  std::shared_ptr<plugin::DevicePlugin> backend;
  {
    LoadedPlugin loaded;
    ASSERT_TRUE(load(ARUN_NULL_PLUGIN, &loaded).ok());
    plugin::OptionValues options;
    // The null device's defaults are filled by the core's validator in real use; here give what it reads.
    options.set("device_count", int64_t(1));
    options.set("compute_units", int64_t(1));
    options.set("copy_units", int64_t(1));
    options.set("memory", int64_t(64) << 20);
    ASSERT_TRUE(create_plugin_object(loaded, options, &backend).ok());
  }
  // The LoadedPlugin is gone; the object alone must keep the code mapped.
  void* h = dlopen(ARUN_NULL_PLUGIN, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr) << "library was unloaded while an object of it was alive";
  if (h) dlclose(h);
  ASSERT_NE(backend, nullptr);
  EXPECT_EQ(backend->device_count(), 1u);
  backend.reset();
}

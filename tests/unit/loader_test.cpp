// The plugin loader against purpose-built broken plugins and the null device plugin.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "arun/runtime/extensions.hpp"
#include "runtime/runtime.hpp"

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

namespace fs = std::filesystem;

// A fresh folder (mode 0755) holding a copy of the null device plugin (mode 0755); removed at the end.
struct PluginCopy {
  fs::path dir, file;
  PluginCopy() {
    std::string tmpl = ::testing::TempDir() + "/arun-loader-XXXXXX";
    char* made = mkdtemp(tmpl.data());
    EXPECT_NE(made, nullptr);
    dir = made;
    ::chmod(dir.c_str(), 0755);
    file = dir / "libarun_device_null.so";
    fs::copy_file(ARUN_NULL_PLUGIN, file);
    ::chmod(file.c_str(), 0755);
  }
  ~PluginCopy() {
    ::chmod(dir.c_str(), 0700);
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  PluginEntry entry(const std::string& path = "") const {
    PluginEntry e;
    e.kind = plugin::PluginKind::Device;
    e.name = "null";
    e.path = path;
    e.origin = "test.toml: plugin[0]";
    return e;
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
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
  PluginSearch search;
  search.dirs = {"/tmp/arun-no-such-dir", "/tmp/arun-no-such-dir-2"};
  Status st = load_plugin_entry(entry, search, &out, &tried);
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

// ---- Issue 24, finding 5: the descriptor symbol, strings and factory ----------------------------

TEST(Loader, DescriptorSymbolThatIsAFunctionIsRefusedBeforeLoading) {
  Status st = load(broken("descriptor_function"));
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "as a function")) << st.message();
  EXPECT_TRUE(contains(st.message(), broken("descriptor_function"))) << st.message();
  // Refused from the file: the library was never mapped.
  void* h = dlopen(broken("descriptor_function").c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_EQ(h, nullptr);
  if (h) dlclose(h);
}

TEST(Loader, DescriptorSymbolOfTheWrongSizeIsRefused) {
  Status st = load(broken("descriptor_wrong_size"));
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "with size 4")) << st.message();
}

TEST(Loader, NullDescriptorPointerIsRefused) {
  Status st = load(broken("descriptor_null"));
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "null or unresolvable")) << st.message();
}

TEST(Loader, UnterminatedFactoryErrorIsBounded) {
  LoadedPlugin loaded;
  ASSERT_TRUE(load(broken("unterminated_error"), &loaded).ok());
  std::shared_ptr<plugin::DevicePlugin> object;
  Status st = create_plugin_object(loaded, plugin::OptionValues{}, &object);
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_EQ(object, nullptr);
  // The plugin filled the 511 bytes it was given, with no NUL: exactly those are reported.
  EXPECT_TRUE(contains(st.message(), std::string(511, 'x'))) << st.message();
  EXPECT_FALSE(contains(st.message(), std::string(512, 'x'))) << st.message();
}

TEST(Loader, ThrowingFactoryNamesThePlugin) {
  LoadedPlugin loaded;
  ASSERT_TRUE(load(broken("throwing_factory"), &loaded).ok());
  std::shared_ptr<plugin::DevicePlugin> object;
  Status st = create_plugin_object(loaded, plugin::OptionValues{}, &object);
  EXPECT_EQ(st.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(st.message(), "plugin broken (")) << st.message();
  EXPECT_TRUE(contains(st.message(), "libarun_device_throwing_factory.so")) << st.message();
  EXPECT_TRUE(contains(st.message(), "the broken plugin throws on purpose")) << st.message();
}

TEST(Loader, ProbeReadsTheFileWithoutLoadingIt) {
  PluginProbe p = probe_plugin_file(broken("factory_fails"));
  EXPECT_TRUE(p.ok) << p.reason;
  EXPECT_EQ(p.name, "broken");
  EXPECT_EQ(p.version, "0.0.1");
  EXPECT_EQ(p.description, "a deliberately broken plugin");
  void* h = dlopen(broken("factory_fails").c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_EQ(h, nullptr) << "probing loaded the library";
  if (h) dlclose(h);
}

// ---- Issue 24, finding 5: file safety and folders ------------------------------------------------

TEST(Loader, WorldWritablePluginIsRefusedWithTheReason) {
  PluginCopy copy;
  ::chmod(copy.file.c_str(), 0757);
  LoadedPlugin out;
  Status st = load_plugin_library(copy.file.string(), nullptr, nullptr, &out);
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "is writable by others (mode 0757)")) << st.message();
  EXPECT_TRUE(contains(st.message(), "allow_insecure_plugins")) << st.message();
  PluginProbe p = probe_plugin_file(copy.file.string());
  EXPECT_FALSE(p.ok);
  EXPECT_TRUE(contains(p.reason, "writable by others")) << p.reason;
  // The switch for development trees lets it load.
  EXPECT_TRUE(load_plugin_library(copy.file.string(), nullptr, nullptr, &out, /*allow_insecure=*/true).ok());
}

TEST(Loader, GroupWritablePluginOrWorldWritableFolderIsRefused) {
  PluginCopy copy;
  ::chmod(copy.file.c_str(), 0775);
  LoadedPlugin out;
  Status st = load_plugin_library(copy.file.string(), nullptr, nullptr, &out);
  EXPECT_TRUE(contains(st.message(), "is writable by its group")) << st.message();
  ::chmod(copy.file.c_str(), 0755);
  ::chmod(copy.dir.c_str(), 0777);
  st = load_plugin_library(copy.file.string(), nullptr, nullptr, &out);
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "its folder " + fs::canonical(copy.dir).string() + " is writable by others"))
      << st.message();
  ::chmod(copy.dir.c_str(), 0755);
  EXPECT_TRUE(load_plugin_library(copy.file.string(), nullptr, nullptr, &out).ok());
}

TEST(Loader, PathOutsideThePluginFoldersIsRefused) {
  PluginCopy plugins, elsewhere;
  PluginSearch search;
  search.dirs = {(plugins.dir / "sub").string()};
  fs::create_directory(plugins.dir / "sub");
  LoadedPlugin out;
  // `..` out of the plugin folder.
  PluginEntry e = plugins.entry((plugins.dir / "sub" / ".." / "libarun_device_null.so").string());
  Status st = load_plugin_entry(e, search, &out, nullptr);
  EXPECT_EQ(st.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(st.message(), "outside the plugin folders")) << st.message();
  EXPECT_TRUE(contains(st.message(), "test.toml: plugin[0]")) << st.message();
  // A symbolic link in the plugin folder to a file elsewhere.
  fs::create_symlink(elsewhere.file, plugins.dir / "sub" / "libarun_device_null.so");
  st = load_plugin_entry(plugins.entry(), search, &out, nullptr);
  EXPECT_TRUE(contains(st.message(), "outside the plugin folders")) << st.message();
  // Inside a plugin folder, by path or by name, it loads.
  search.dirs.push_back(plugins.dir.string());
  EXPECT_TRUE(load_plugin_entry(plugins.entry(plugins.file.string()), search, &out, nullptr).ok());
}

// ---- Issue 24, finding 5: only what the configuration selects is ever dlopen'ed -------------------

TEST(Loader, OnlyTheConfiguredPluginsAreLoaded) {
  const std::string marker = ::testing::TempDir() + "/arun-plugin-marker.txt";
  std::remove(marker.c_str());
  ::setenv("ARUN_TEST_PLUGIN_MARKER", marker.c_str(), 1);
  const std::string marker_so = std::string(ARUN_MARKER_PLUGIN_DIR) + "/libarun_profiler_marker.so";
  const std::string base = std::string("[[plugin]]\nkind = \"device\"\nname = \"null\"\n[runtime]\n") +
                           "plugin_search_paths = [\"" ARUN_MARKER_PLUGIN_DIR "\", \"" ARUN_BUILD_PLUGIN_DIR "\"]\n";
  auto write = [](const std::string& name, const std::string& body) {
    std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << body;
    return path;
  };
  // An unknown scheduler: the message lists the scheduler plugins found, reading their files.
  std::string cfg = write("m1.toml", base + "[scheduler]\npolicy = \"nonesuch\"\n");
  Status st = Runtime::initialize(cfg.c_str());
  EXPECT_FALSE(st.ok());
  // Profiling on with an unknown sink: the message lists the installed sinks (the marker among them).
  cfg = write("m2.toml", base + "[profiler]\nenabled = true\nsinks = [\"nonesuch\"]\n");
  st = Runtime::initialize(cfg.c_str());
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(contains(st.message(), "marker")) << st.message();
  // A runtime that never names it, and `ascend-run info`'s report of every plugin library found.
  cfg = write("m3.toml", base);
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  std::string report = rt::runtime_report();
  EXPECT_TRUE(contains(report, "profiler marker 0.0.1")) << report;
  EXPECT_TRUE(Runtime::finalize().ok());
  EXPECT_FALSE(fs::exists(marker)) << "a plugin the configuration never selected was loaded";
  void* h = dlopen(marker_so.c_str(), RTLD_NOW | RTLD_NOLOAD);
  EXPECT_EQ(h, nullptr);
  if (h) dlclose(h);
  // Selecting it loads it (its factory then refuses, which is fine here).
  cfg = write("m4.toml", base + "[profiler]\nenabled = true\nsinks = [\"marker\"]\n");
  st = Runtime::initialize(cfg.c_str());
  if (st.ok()) (void)Runtime::finalize();
  EXPECT_TRUE(fs::exists(marker)) << "the test's marker plugin did not leave its marker when selected";
  EXPECT_TRUE(contains(read_file(marker), "loaded"));
  ::unsetenv("ARUN_TEST_PLUGIN_MARKER");
}

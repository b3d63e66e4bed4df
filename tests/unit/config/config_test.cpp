// Unit tests for the configuration (core/src/config/): the TOML format, CANN acl.json, plugin option
// validation, byte sizes, the log-level environment variable, the shipped configs, the defaults a
// configuration takes from the installed default config, and the setting precedence.
#include "config/config.hpp"
#include "config/default_config.hpp"
#include "config/setting.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using arun::Errc;
using arun::RuntimeConfig;
using arun::Status;
using arun::plugin::LogLevel;
using arun::plugin::OptionSpec;
using arun::plugin::OptionType;
using arun::plugin::OptionValues;
using arun::plugin::PluginKind;

#ifndef ARUN_TEST_CONFIG_DIR
#error "ARUN_TEST_CONFIG_DIR (the source configs/ folder) must be defined"
#endif
#ifndef ARUN_TEST_DATA_DIR
#error "ARUN_TEST_DATA_DIR (tests/unit/config/data) must be defined"
#endif

namespace {

const std::string kConfigDir = ARUN_TEST_CONFIG_DIR;
const std::string kDataDir = ARUN_TEST_DATA_DIR;

// Parses `text` as "t.toml" with base folder /base.
Status parse(std::string_view text, RuntimeConfig* cfg) {
  return arun::parse_config_toml(text, "t.toml", "/base", cfg);
}

// A fresh temporary folder per test, removed afterwards.
class TempDir {
 public:
  TempDir() {
    std::string tmpl = (fs::temp_directory_path() / "arun-config-test-XXXXXX").string();
    char* made = ::mkdtemp(tmpl.data());
    if (made == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = made;
  }
  ~TempDir() {
    std::error_code ec;
    fs::permissions(path_, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, std::string_view text) const {
    fs::path p = path_ / name;
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out << text;
    return p.string();
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// Scoped environment variable.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvVar() {
    if (old_)
      ::setenv(name_, old_->c_str(), 1);
    else
      ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// EXPECT that `text` contains `part`, without linking gmock.
#define EXPECT_CONTAINS(text, part) \
  EXPECT_NE(std::string(text).find(part), std::string::npos) << "\"" << (text) << "\" lacks \"" << (part) << '"'

void ExpectError(const Status& s, Errc code, std::initializer_list<std::string_view> parts) {
  EXPECT_EQ(s.code(), code) << s.message();
  for (auto part : parts) EXPECT_CONTAINS(s.message(), std::string(part));
}

// ============================================================================================
// TOML format: defaults

TEST(ConfigToml, EmptyTextGivesDefaults) {
  RuntimeConfig cfg;
  ASSERT_TRUE(parse("", &cfg).ok());
  EXPECT_FALSE(cfg.log_level.has_value());
  EXPECT_TRUE(cfg.plugin_search_paths.empty());
  EXPECT_TRUE(cfg.plugins.empty());
  EXPECT_EQ(cfg.scheduler_policy, "priority");
  EXPECT_TRUE(cfg.scheduler_options.empty());
  EXPECT_EQ(cfg.allocator_policy, "direct");
  EXPECT_TRUE(cfg.allocator_options.empty());
  EXPECT_FALSE(cfg.profiler_enabled);
  EXPECT_TRUE(cfg.profiler_sinks.empty());
  EXPECT_TRUE(cfg.profiler_default_sinks.empty());  // the installed default config fills it (default_config.hpp)
  EXPECT_EQ(cfg.profiler_output_dir, "ascend-run-profile");
  EXPECT_TRUE(cfg.notices.empty());
  EXPECT_FALSE(cfg.from_acl_json);
}

TEST(ConfigToml, CommentsOnlyAndEmptyTablesGiveDefaults) {
  RuntimeConfig cfg;
  ASSERT_TRUE(parse("# nothing\n\n[runtime]\n[scheduler]\n[allocator]\n[profiler]\n", &cfg).ok());
  EXPECT_EQ(cfg.scheduler_policy, "priority");
  EXPECT_EQ(cfg.allocator_policy, "direct");
  EXPECT_TRUE(cfg.plugins.empty());
}

TEST(ConfigToml, FullDocument) {
  RuntimeConfig cfg;
  Status s = parse(R"(
[runtime]
log_level = "debug"
plugin_search_paths = ["plugins", "/opt/p"]

[[plugin]]
kind = "device"
name = "ascend"
[plugin.options]
device_count = 2
memory = "16GiB"

[[plugin]]
kind = "profiler"
name = "timeline"
path = "lib/libarun_profiler_timeline.so"

[[plugin]]
kind = "allocator"
name = "caching_pool"

[[plugin]]
kind = "scheduler"
name = "priority"

[scheduler]
policy = "priority"
aging_us = 50

[allocator]
policy = "caching_pool"
max_cached = "1GiB"

[profiler]
enabled = true
sinks = ["timeline", "op_stats"]
output_dir = "prof"
)",
                   &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cfg.log_level, LogLevel::Debug);
  ASSERT_EQ(cfg.plugin_search_paths.size(), 2u);
  EXPECT_EQ(cfg.plugin_search_paths[0], "/base/plugins");
  EXPECT_EQ(cfg.plugin_search_paths[1], "/opt/p");

  ASSERT_EQ(cfg.plugins.size(), 4u);
  EXPECT_EQ(cfg.plugins[0].kind, PluginKind::Device);
  EXPECT_EQ(cfg.plugins[0].name, "ascend");
  EXPECT_EQ(cfg.plugins[0].path, "");
  EXPECT_EQ(cfg.plugins[0].options.size(), 2u);
  EXPECT_EQ(cfg.plugins[0].options["device_count"].value<int64_t>(), 2);
  EXPECT_EQ(cfg.plugins[0].options["memory"].value<std::string>(), "16GiB");
  EXPECT_EQ(cfg.plugins[0].origin, "t.toml: plugin[0]");
  EXPECT_EQ(cfg.plugins[1].kind, PluginKind::Profiler);
  EXPECT_EQ(cfg.plugins[1].path, "/base/lib/libarun_profiler_timeline.so");
  EXPECT_TRUE(cfg.plugins[1].options.empty());
  EXPECT_EQ(cfg.plugins[1].origin, "t.toml: plugin[1]");
  EXPECT_EQ(cfg.plugins[2].kind, PluginKind::Allocator);
  EXPECT_EQ(cfg.plugins[3].kind, PluginKind::Scheduler);

  EXPECT_EQ(cfg.scheduler_policy, "priority");
  EXPECT_EQ(cfg.scheduler_options.size(), 1u);
  EXPECT_EQ(cfg.scheduler_options["aging_us"].value<int64_t>(), 50);
  EXPECT_FALSE(cfg.scheduler_options.contains("policy"));
  EXPECT_EQ(cfg.allocator_policy, "caching_pool");
  EXPECT_EQ(cfg.allocator_options.size(), 1u);
  EXPECT_EQ(cfg.allocator_options["max_cached"].value<std::string>(), "1GiB");

  EXPECT_TRUE(cfg.profiler_enabled);
  EXPECT_EQ(cfg.profiler_sinks, (std::vector<std::string>{"timeline", "op_stats"}));
  EXPECT_EQ(cfg.profiler_output_dir, "prof");
}

TEST(ConfigToml, EveryLogLevel) {
  const std::pair<const char*, LogLevel> table[] = {{"debug", LogLevel::Debug},
                                                    {"info", LogLevel::Info},
                                                    {"warning", LogLevel::Warning},
                                                    {"error", LogLevel::Error},
                                                    {"off", LogLevel::Off}};
  for (auto& [name, level] : table) {
    RuntimeConfig cfg;
    ASSERT_TRUE(parse(std::string("[runtime]\nlog_level = \"") + name + "\"\n", &cfg).ok()) << name;
    EXPECT_EQ(cfg.log_level, level) << name;
  }
}

TEST(ConfigToml, InlinePluginArrayIsAccepted) {
  RuntimeConfig cfg;
  Status s = parse("plugin = [{kind = \"device\", name = \"null\", options = {device_count = 1}}]\n", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cfg.plugins.size(), 1u);
  EXPECT_EQ(cfg.plugins[0].name, "null");
  EXPECT_EQ(cfg.plugins[0].options["device_count"].value<int64_t>(), 1);
}

TEST(ConfigToml, SameNameDifferentKindIsAllowed) {
  RuntimeConfig cfg;
  Status s =
      parse("[[plugin]]\nkind = \"device\"\nname = \"x\"\n[[plugin]]\nkind = \"profiler\"\nname = \"x\"\n", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cfg.plugins.size(), 2u);
}

TEST(ConfigToml, RelativePathsResolveAgainstBaseDir) {
  RuntimeConfig cfg;
  Status s = arun::parse_config_toml(
      "[runtime]\nplugin_search_paths = [\"a\", \"./b/\", \"../c\", \"/abs/d\"]\n"
      "[[plugin]]\nkind = \"device\"\nname = \"x\"\npath = \"../lib/libx.so\"\n",
      "t.toml", "/etc/arun/conf", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cfg.plugin_search_paths,
            (std::vector<std::string>{"/etc/arun/conf/a", "/etc/arun/conf/b", "/etc/arun/c", "/abs/d"}));
  EXPECT_EQ(cfg.plugins[0].path, "/etc/arun/lib/libx.so");
}

TEST(ConfigToml, RelativeBaseDirIsMadeAbsolute) {
  RuntimeConfig cfg;
  Status s = arun::parse_config_toml("[runtime]\nplugin_search_paths = [\"p\"]\n", "t.toml", "rel", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cfg.plugin_search_paths.size(), 1u);
  EXPECT_TRUE(fs::path(cfg.plugin_search_paths[0]).is_absolute()) << cfg.plugin_search_paths[0];
  EXPECT_EQ(cfg.plugin_search_paths[0], (fs::current_path() / "rel" / "p").lexically_normal().string());
}

TEST(ConfigToml, FailureLeavesOutputUntouched) {
  RuntimeConfig cfg;
  cfg.scheduler_policy = "keep";
  cfg.notices.push_back("old");
  EXPECT_FALSE(parse("[scheduler]\npolicy = \"x\"\n[runtime]\nbogus = 1\n", &cfg).ok());
  EXPECT_EQ(cfg.scheduler_policy, "keep");
  EXPECT_EQ(cfg.notices.size(), 1u);
}

// ============================================================================================
// TOML format: errors

TEST(ConfigTomlErrors, SyntaxError) {
  RuntimeConfig cfg;
  Status s = parse("[runtime]\nlog_level = \n", &cfg);
  ExpectError(s, Errc::parse_file, {"t.toml:2:", "TOML syntax error"});
}

TEST(ConfigTomlErrors, DuplicateTomlKeyIsSyntaxError) {
  RuntimeConfig cfg;
  Status s = parse("[runtime]\nlog_level = \"info\"\nlog_level = \"off\"\n", &cfg);
  ExpectError(s, Errc::parse_file, {"t.toml:3:", "log_level"});
}

TEST(ConfigTomlErrors, UnknownTopLevelKey) {
  RuntimeConfig cfg;
  Status s = parse("[runtime]\n[plugins]\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), "t.toml:2:2: plugins: unknown key (valid: runtime, plugin, scheduler, allocator, profiler)");
  s = parse("verbose = true\n", &cfg);
  ExpectError(s, Errc::file_attr_invalid, {"t.toml:1:1: verbose: unknown key"});
}

TEST(ConfigTomlErrors, UnknownRuntimeKey) {
  RuntimeConfig cfg;
  Status s = parse("[runtime]\nlog_level = \"info\"\nloglevel = \"info\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(),
            "t.toml:3:1: runtime.loglevel: unknown key (valid: log_level, plugin_search_paths, "
            "allow_insecure_plugins, leak_report, leak_call_sites, memory_report, finalize_timeout_ms, "
            "stream_sanitizer)");
}

TEST(ConfigToml, FinalizeTimeout) {
  RuntimeConfig cfg;
  EXPECT_EQ(cfg.finalize_timeout_ms, 30000);
  ASSERT_TRUE(parse("[runtime]\nfinalize_timeout_ms = 250\n", &cfg).ok());
  EXPECT_EQ(cfg.finalize_timeout_ms, 250);
  Status s = parse("[runtime]\nfinalize_timeout_ms = -1\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("runtime.finalize_timeout_ms"), std::string::npos) << s.message();
}

TEST(ConfigToml, LeakReportModes) {
  RuntimeConfig cfg;
  EXPECT_EQ(cfg.leak_report, arun::LeakReportMode::Warn) << "warn is the default";
  EXPECT_FALSE(cfg.leak_call_sites);
  for (auto [text, mode] : {std::pair{"off", arun::LeakReportMode::Off}, std::pair{"warn", arun::LeakReportMode::Warn},
                            std::pair{"error", arun::LeakReportMode::Error}}) {
    RuntimeConfig c;
    Status s = parse(std::string("[runtime]\nleak_report = \"") + text + "\"\nleak_call_sites = true\n", &c);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(c.leak_report, mode) << text;
    EXPECT_TRUE(c.leak_call_sites);
  }
  Status s = parse("[runtime]\nleak_report = \"loud\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(),
            "t.toml:2:15: runtime.leak_report: \"loud\" is not a leak report mode (valid: off, warn, error)");
  s = parse("[runtime]\nleak_call_sites = \"yes\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
}

TEST(ConfigToml, MemoryReport) {
  RuntimeConfig cfg;
  EXPECT_FALSE(cfg.memory_report) << "off by default";
  Status s = parse("[runtime]\nmemory_report = true\n", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(cfg.memory_report);
  s = parse("[runtime]\nmemory_report = 1\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("runtime.memory_report"), std::string::npos) << s.message();
}

TEST(ConfigTomlErrors, UnknownPluginKey) {
  RuntimeConfig cfg;
  Status s = parse("[[plugin]]\nkind = \"device\"\nname = \"a\"\noption = {}\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), "t.toml:4:1: plugin[0].option: unknown key (valid: kind, name, path, options)");
}

TEST(ConfigTomlErrors, UnknownProfilerKey) {
  RuntimeConfig cfg;
  Status s = parse("[profiler]\nenabled = true\nsink = \"timeline\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(),
            "t.toml:3:1: profiler.sink: unknown key (valid: enabled, sinks, default_sinks, aclprof_sinks, output_dir, "
            "buffer_size, start_after_ms, duration_ms)");
}

TEST(ConfigToml, ProfilerBufferAndCaptureWindow) {
  RuntimeConfig cfg;
  ASSERT_TRUE(parse("[profiler]\nbuffer_size = \"1MiB\"\nstart_after_ms = 5\nduration_ms = 250\n", &cfg).ok());
  EXPECT_EQ(cfg.profiler_buffer_bytes, 1u << 20);
  EXPECT_EQ(cfg.profiler_start_after_ms, 5u);
  EXPECT_EQ(cfg.profiler_duration_ms, 250u);
  RuntimeConfig plain;
  ASSERT_TRUE(parse("[profiler]\nbuffer_size = 65536\n", &plain).ok());
  EXPECT_EQ(plain.profiler_buffer_bytes, 65536u);
  RuntimeConfig bad;
  Status s = parse("[profiler]\nbuffer_size = 100\n", &bad);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), "t.toml:2:15: profiler.buffer_size: 100 bytes is outside [6KiB (64 records), 256MiB]");
}

TEST(ConfigTomlErrors, ProfilerBufferAboveTheMaximumNamesTheKey) {
  RuntimeConfig cfg;
  EXPECT_TRUE(parse("[profiler]\nbuffer_size = \"256MiB\"\n", &cfg).ok());
  Status s = parse("[profiler]\nbuffer_size = \"4GiB\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), "t.toml:2:15: profiler.buffer_size: 4294967296 bytes is outside [6KiB (64 records), 256MiB]");
}

// Deep nesting is refused before TOML++ builds (and recurses through) the document.
TEST(ConfigTomlErrors, DeeplyNestedDottedKeysAreRefusedBeforeParsing) {
  std::string deep = "[runtime]\n";
  for (int i = 0; i < 100000; ++i) deep += "a.";
  deep += "b = 1\n";
  RuntimeConfig cfg;
  Status s = parse(deep, &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("t.toml:2:1: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("nested deeper than 32"), std::string::npos) << s.message();
}

TEST(ConfigTomlErrors, DeeplyNestedTableHeadersAreRefusedBeforeParsing) {
  std::string deep = "# header\n\n[";
  for (int i = 0; i < 100000; ++i) deep += "t.";
  deep += "u]\n";
  RuntimeConfig cfg;
  Status s = parse(deep, &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("t.toml:3:1: "), std::string::npos) << s.message();
  std::string arrays = "[[";
  for (int i = 0; i < 40; ++i) arrays += "\"q.x\" . ";
  arrays += "z]]\n";
  s = parse(arrays, &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid) << s.message();
  EXPECT_NE(s.message().find("t.toml:1:1: "), std::string::npos) << s.message();
}

TEST(ConfigToml, DotsInsideQuotedKeysAndStringsDoNotCountAsNesting) {
  std::string text = "[runtime]\nlog_level = \"";
  for (int i = 0; i < 100; ++i) text += "x.";
  text += "\"\n";
  RuntimeConfig cfg;
  Status s = parse(text, &cfg);
  // The value is not a log level, but it is reported as such (not as nesting).
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("is not a log level"), std::string::npos) << s.message();
  std::string quoted = "[scheduler]\n\"";
  for (int i = 0; i < 100; ++i) quoted += "k.";
  quoted += "\" = 1\n";
  EXPECT_TRUE(parse(quoted, &cfg).ok()) << parse(quoted, &cfg).message();
  std::string multiline = "[runtime]\nlog_level = \"\"\"\n";
  for (int i = 0; i < 100; ++i) multiline += "a.";
  multiline += "\n\"\"\"\n";
  s = parse(multiline, &cfg);
  EXPECT_NE(s.message().find("is not a log level"), std::string::npos) << s.message();
  // 32 levels in all are accepted.
  std::string ok = "[scheduler]\n";
  for (int i = 0; i < 30; ++i) ok += "a.";
  ok += "b = 1\n";
  EXPECT_TRUE(parse(ok, &cfg).ok()) << parse(ok, &cfg).message();
}

TEST(ConfigTomlErrors, InvalidLogLevelListsValidValues) {
  RuntimeConfig cfg;
  Status s = parse("[runtime]\nlog_level = \"verbose\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(),
            "t.toml:2:13: runtime.log_level: \"verbose\" is not a log level (valid: debug, info, warning, error, off)");
}

TEST(ConfigTomlErrors, LogLevelIsCaseSensitive) {
  RuntimeConfig cfg;
  ExpectError(parse("[runtime]\nlog_level = \"INFO\"\n", &cfg), Errc::file_attr_invalid,
              {"runtime.log_level", "\"INFO\" is not a log level"});
}

TEST(ConfigTomlErrors, InvalidKindListsValidValues) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file(kDataDir + "/bad_kind.toml", &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), kDataDir +
                             "/bad_kind.toml:7:8: plugin[1].kind: \"gpu\" is not a plugin kind "
                             "(valid: device, allocator, profiler, scheduler, collective)");
}

TEST(ConfigTomlErrors, WrongTypes) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"runtime = 1\n", "t.toml:1:11: runtime: expected a table, got integer"},
      {"[runtime]\nlog_level = 2\n", "t.toml:2:13: runtime.log_level: expected a string, got integer"},
      {"[runtime]\nplugin_search_paths = \"p\"\n",
       "t.toml:2:23: runtime.plugin_search_paths: expected an array of strings, got string"},
      {"[runtime]\nplugin_search_paths = [\"a\", 3]\n",
       "t.toml:2:29: runtime.plugin_search_paths[1]: expected a string, got integer"},
      {"[runtime]\nplugin_search_paths = [\"\"]\n", "t.toml:2:24: runtime.plugin_search_paths[0]: must not be empty"},
      {"[plugin]\nkind = \"device\"\n",
       "t.toml:1:1: plugin: expected an array of tables (write each entry as [[plugin]]), got table"},
      {"plugin = [1]\n", "t.toml:1:11: plugin[0]: expected a table, got integer"},
      {"[[plugin]]\nkind = 1\nname = \"a\"\n", "t.toml:2:8: plugin[0].kind: expected a string, got integer"},
      {"[[plugin]]\nkind = \"device\"\nname = true\n", "t.toml:3:8: plugin[0].name: expected a string, got boolean"},
      {"[[plugin]]\nkind = \"device\"\nname = \"a\"\npath = 5\n",
       "t.toml:4:8: plugin[0].path: expected a string, got integer"},
      {"[[plugin]]\nkind = \"device\"\nname = \"a\"\npath = \"\"\n", "t.toml:4:8: plugin[0].path: must not be empty"},
      {"[[plugin]]\nkind = \"device\"\nname = \"a\"\noptions = [1]\n",
       "t.toml:4:11: plugin[0].options: expected a table, got array"},
      {"scheduler = \"fifo\"\n", "t.toml:1:13: scheduler: expected a table, got string"},
      {"[scheduler]\npolicy = 1\n", "t.toml:2:10: scheduler.policy: expected a string, got integer"},
      {"[allocator]\npolicy = \"\"\n", "t.toml:2:10: allocator.policy: must not be empty"},
      {"[allocator]\npolicy = [\"direct\"]\n", "t.toml:2:10: allocator.policy: expected a string, got array"},
      {"[[profiler]]\n", "t.toml:1:1: profiler: expected a table, got array"},
      {"[profiler]\nenabled = \"yes\"\n",
       "t.toml:2:11: profiler.enabled: expected a boolean (true or false), got string"},
      {"[profiler]\nenabled = 1\n", "t.toml:2:11: profiler.enabled: expected a boolean (true or false), got integer"},
      {"[profiler]\nsinks = \"timeline\"\n", "t.toml:2:9: profiler.sinks: expected an array of strings, got string"},
      {"[profiler]\nsinks = [\"a\", \"a\"]\n", "t.toml:2:15: profiler.sinks[1]: duplicate sink \"a\""},
      {"[profiler]\noutput_dir = 1.5\n", "t.toml:2:14: profiler.output_dir: expected a string, got float"},
      {"[profiler]\noutput_dir = 1979-05-27\n", "t.toml:2:14: profiler.output_dir: expected a string, got date"},
  };
  for (const Case& c : cases) {
    RuntimeConfig cfg;
    Status s = parse(c.text, &cfg);
    EXPECT_EQ(s.code(), Errc::file_attr_invalid) << c.text << " -> " << s.message();
    EXPECT_EQ(s.message(), c.expected) << c.text;
  }
}

TEST(ConfigTomlErrors, MissingKindOrName) {
  RuntimeConfig cfg;
  Status s = parse("[[plugin]]\nname = \"ascend\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_missing_attr);
  EXPECT_EQ(s.message(),
            "t.toml:1:1: plugin[0]: missing required key \"kind\" (one of: device, allocator, profiler, scheduler, "
            "collective)");
  s = parse("[[plugin]]\nkind = \"device\"\nname = \"a\"\n\n[[plugin]]\nkind = \"device\"\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_missing_attr);
  EXPECT_EQ(s.message(), "t.toml:5:1: plugin[1]: missing required key \"name\"");
  s = parse("[[plugin]]\n", &cfg);
  EXPECT_EQ(s.code(), Errc::file_missing_attr);
}

TEST(ConfigTomlErrors, InvalidPluginName) {
  RuntimeConfig cfg;
  for (const char* name : {"Ascend", "my-plugin", "", "a b", "../x"}) {
    Status s = parse(std::string("[[plugin]]\nkind = \"device\"\nname = \"") + name + "\"\n", &cfg);
    EXPECT_EQ(s.code(), Errc::file_attr_invalid) << name;
    EXPECT_CONTAINS(s.message(), "t.toml:3:8: plugin[0].name: ");
    EXPECT_CONTAINS(s.message(), "is not a valid plugin name");
  }
}

TEST(ConfigTomlErrors, DuplicatePlugin) {
  RuntimeConfig cfg;
  Status s = parse(
      "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n"
      "[[plugin]]\nkind = \"profiler\"\nname = \"timeline\"\n"
      "[[plugin]]\nname = \"ascend\"\nkind = \"device\"\n",
      &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(),
            "t.toml:7:1: plugin[2]: duplicate device plugin \"ascend\" (already listed as plugin[0] at line 1)");
}

// Duplicate detection is one hash lookup per entry: a long plugin list is parsed in time linear in
// its length (the pairwise comparison it replaced took over a minute for 300 000 entries).
TEST(ConfigToml, DuplicatePluginDetectionIsLinear) {
  constexpr int kEntries = 150000;
  std::string text;
  text.reserve(kEntries * 48);
  for (int i = 0; i < kEntries; ++i) text += "[[plugin]]\nkind = \"device\"\nname = \"p" + std::to_string(i) + "\"\n";
  text += "[[plugin]]\nkind = \"device\"\nname = \"p0\"\n";
  RuntimeConfig cfg;
  const auto start = std::chrono::steady_clock::now();
  Status s = parse(text, &cfg);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("duplicate device plugin \"p0\" (already listed as plugin[0] at line 1)"),
            std::string::npos)
      << s.message();
  // The quadratic detection took ~19 s here in an optimised build; sanitizers slow parsing itself
  // several-fold on a loaded machine, so only optimised builds hold the bound.
#if defined(ARUN_TEST_ASAN) || defined(ARUN_TEST_TSAN)
  (void)seconds;
#else
  EXPECT_LT(seconds, 10.0) << "parsing " << kEntries << " plugin entries";
#endif
}

TEST(ConfigTomlErrors, ErrorsReportTheOriginGiven) {
  RuntimeConfig cfg;
  Status s = arun::parse_config_toml("[runtime]\nx = 1\n", "/etc/ascend-run/site.toml", "/etc", &cfg);
  EXPECT_EQ(s.message(),
            "/etc/ascend-run/site.toml:2:1: runtime.x: unknown key (valid: log_level, plugin_search_paths, "
            "allow_insecure_plugins, leak_report, leak_call_sites, memory_report, finalize_timeout_ms, "
            "stream_sanitizer)");
}

// ============================================================================================
// Files

TEST(ConfigFile, MissingFile) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file("/nonexistent/dir/ascend-run.toml", &cfg);
  ExpectError(s, Errc::invalid_file, {"/nonexistent/dir/ascend-run.toml", "cannot open config file"});
  s = arun::load_config_file("/nonexistent/acl.json", &cfg);
  ExpectError(s, Errc::invalid_file, {"/nonexistent/acl.json"});
}

TEST(ConfigFile, EmptyPath) {
  RuntimeConfig cfg;
  EXPECT_EQ(arun::load_config_file("", &cfg).code(), Errc::invalid_file);
}

TEST(ConfigFile, Directory) {
  TempDir dir;
  RuntimeConfig cfg;
  ExpectError(arun::load_config_file(dir.path().string(), &cfg), Errc::invalid_file,
              {dir.path().string(), "is a directory"});
}

TEST(ConfigFile, Unreadable) {
  if (::geteuid() == 0) GTEST_SKIP() << "root reads any file";
  TempDir dir;
  std::string p = dir.write("locked.toml", "[runtime]\n");
  ::chmod(p.c_str(), 0);
  RuntimeConfig cfg;
  ExpectError(arun::load_config_file(p, &cfg), Errc::invalid_file, {p, "cannot open config file"});
}

TEST(ConfigFile, EmptyFileIsValid) {
  RuntimeConfig cfg;
  cfg.source_kind = "argument";
  Status s = arun::load_config_file(kDataDir + "/empty.toml", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cfg.source_path, kDataDir + "/empty.toml");
  EXPECT_EQ(cfg.source_kind, "argument");  // the caller's field is kept
  EXPECT_TRUE(cfg.plugins.empty());
  EXPECT_EQ(cfg.scheduler_policy, "priority");
  EXPECT_FALSE(cfg.from_acl_json);
}

TEST(ConfigFile, RelativePathsResolveAgainstTheFilesFolder) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file(kDataDir + "/relative_paths.toml", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  std::string parent = fs::path(kDataDir).parent_path().string();
  EXPECT_EQ(cfg.plugin_search_paths,
            (std::vector<std::string>{kDataDir + "/plugins", parent + "/elsewhere", "/abs/dir"}));
  ASSERT_EQ(cfg.plugins.size(), 1u);
  EXPECT_EQ(cfg.plugins[0].path, kDataDir + "/lib/libarun_device_null.so");
  EXPECT_EQ(cfg.plugins[0].origin, kDataDir + "/relative_paths.toml: plugin[0]");
}

TEST(ConfigFile, RelativeFilePathGivesAbsoluteResults) {
  TempDir dir;
  dir.write("sub/c.toml", "[runtime]\nplugin_search_paths = [\"p\"]\n");
  fs::path old = fs::current_path();
  fs::current_path(dir.path());
  RuntimeConfig cfg;
  Status s = arun::load_config_file("sub/c.toml", &cfg);
  fs::current_path(old);
  ASSERT_TRUE(s.ok()) << s.message();
  fs::path real = fs::canonical(dir.path());  // the temp folder may sit behind a symlink
  EXPECT_TRUE(cfg.source_path == (dir.path() / "sub/c.toml").string() ||
              cfg.source_path == (real / "sub/c.toml").string())
      << cfg.source_path;
  ASSERT_EQ(cfg.plugin_search_paths.size(), 1u);
  EXPECT_TRUE(fs::path(cfg.plugin_search_paths[0]).is_absolute());
  EXPECT_EQ(fs::path(cfg.plugin_search_paths[0]).filename(), "p");
}

TEST(ConfigFile, SyntaxErrorNamesTheFile) {
  TempDir dir;
  std::string p = dir.write("bad.toml", "[runtime]\nlog_level = \"info\n");
  RuntimeConfig cfg;
  ExpectError(arun::load_config_file(p, &cfg), Errc::parse_file, {p + ":2:", "TOML syntax error"});
}

TEST(ConfigFile, FilesWithoutJsonSuffixAreToml) {
  TempDir dir;
  std::string p = dir.write("conf.cfg", "[scheduler]\npolicy = \"x\"\n");
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(p, &cfg).ok());
  EXPECT_EQ(cfg.scheduler_policy, "x");
}

// ============================================================================================
// CANN acl.json

TEST(AclJson, EmptyObject) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file(kDataDir + "/empty_object.json", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(cfg.from_acl_json);
  EXPECT_EQ(cfg.source_path, kDataDir + "/empty_object.json");
  EXPECT_TRUE(cfg.notices.empty());
  EXPECT_TRUE(cfg.plugins.empty());
  EXPECT_EQ(cfg.scheduler_policy, "priority");
}

TEST(AclJson, EmptyFileIsLikeEmptyObject) {
  TempDir dir;
  std::string p = dir.write("acl.json", "  \n");
  RuntimeConfig cfg;
  Status s = arun::load_config_file(p, &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(cfg.from_acl_json);
}

TEST(AclJson, CannKeysAreNoticedOnceEach) {
  RuntimeConfig cfg;
  std::string p = kDataDir + "/cann_full.json";
  Status s = arun::load_config_file(p, &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(cfg.from_acl_json);
  const char* keys[] = {"dump", "profiler", "err_msg_mode", "defaultDevice", "max_opqueue_num", "StackSize"};
  ASSERT_EQ(cfg.notices.size(), std::size(keys));
  for (size_t i = 0; i < std::size(keys); ++i) {
    // In file order, one per key.
    EXPECT_EQ(cfg.notices[i], p + ": key \"" + keys[i] + "\" is a CANN option ascend-run does not use; ignored");
  }
}

TEST(AclJson, OtherCannKeysAreRecognised) {
  TempDir dir;
  std::string p = dir.write("acl.json",
                            R"({"stack_size": 1, "printf_fifo_size": 2, "simd_printf_fifo_size_per_core": 1048576,
                                "acl_graph": {"event_mode": "0"}, "op_debug_config": "x"})");
  RuntimeConfig cfg;
  Status s = arun::load_config_file(p, &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cfg.notices.size(), 5u);
}

TEST(AclJson, UnknownKeyIsAnError) {
  RuntimeConfig cfg;
  std::string p = kDataDir + "/unknown_key.json";
  Status s = arun::load_config_file(p, &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  ExpectError(s, Errc::file_attr_invalid,
              {p + ":3:5: plugins: \"plugins\" is not an acl.json option", "err_msg_mode", "dump", "TOML"});
  EXPECT_TRUE(cfg.notices.empty());
  EXPECT_FALSE(cfg.from_acl_json);
}

TEST(AclJson, NonObjectIsParseError) {
  RuntimeConfig cfg;
  std::string p = kDataDir + "/array.json";
  ExpectError(arun::load_config_file(p, &cfg), Errc::parse_file, {p, "JSON object", "array"});
  TempDir dir;
  ExpectError(arun::load_config_file(dir.write("s.json", "\"text\""), &cfg), Errc::parse_file, {"string"});
  ExpectError(arun::load_config_file(dir.write("n.json", "null"), &cfg), Errc::parse_file, {"null"});
}

TEST(AclJson, MalformedIsParseError) {
  RuntimeConfig cfg;
  std::string p = kDataDir + "/malformed.json";
  Status s = arun::load_config_file(p, &cfg);
  ExpectError(s, Errc::parse_file, {p, "invalid JSON", "line 1"});
  EXPECT_EQ(s.message().find("[json.exception"), std::string::npos) << s.message();
}

TEST(AclJson, SuffixIsCaseInsensitive) {
  TempDir dir;
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(dir.write("ACL.JSON", "{}"), &cfg).ok());
  EXPECT_TRUE(cfg.from_acl_json);
}

// ============================================================================================
// Byte sizes

TEST(ByteSize, Table) {
  struct Case {
    const char* text;
    bool ok;
    uint64_t bytes;
  };
  const Case cases[] = {
      {"0", true, 0},
      {"4096", true, 4096},
      {"4096B", true, 4096},
      {"4096 b", true, 4096},
      {"1KiB", true, 1024},
      {"1kib", true, 1024},
      {"1KB", true, 1000},
      {"512MiB", true, 512ull << 20},
      {"512 MiB", true, 512ull << 20},
      {"16GiB", true, 16ull << 30},
      {"16 GiB", true, 16ull << 30},
      {"  16GiB  ", true, 16ull << 30},
      {"16gIb", true, 16ull << 30},
      {"1.5GB", true, 1500000000ull},
      {"1.5GiB", true, 3ull << 29},
      {"2MB", true, 2000000ull},
      {"1TiB", true, 1ull << 40},
      {"3TB", true, 3000000000000ull},
      {"0.5KiB", true, 512},
      {"1.0009765625KiB", true, 1025},
      {"0.1KiB", true, 102},  // rounded down to whole bytes
      {"18446744073709551615", true, 18446744073709551615ull},
      {"16777215TiB", true, 16777215ull << 40},
      // malformed
      {"", false, 0},
      {"   ", false, 0},
      {"GiB", false, 0},
      {"-1", false, 0},
      {"-1GiB", false, 0},
      {"+1GiB", false, 0},
      {"1.5", false, 0},  // fractional bytes
      {"1.5B", false, 0},
      {"1.", false, 0},
      {".5GiB", false, 0},
      {"1e9", false, 0},
      {"16 G", false, 0},
      {"16GiBs", false, 0},
      {"16 Gi B", false, 0},
      {"1,024", false, 0},
      {"0x10", false, 0},
      // overflow
      {"18446744073709551616", false, 0},
      {"99999999999999999999999", false, 0},
      {"16777216TiB", false, 0},
      {"18446744073709551615KiB", false, 0},
      {"20000000TB", false, 0},
  };
  for (const Case& c : cases) {
    uint64_t v = 12345;
    bool ok = arun::parse_byte_size(c.text, &v);
    EXPECT_EQ(ok, c.ok) << '"' << c.text << '"';
    if (ok && c.ok) {
      EXPECT_EQ(v, c.bytes) << '"' << c.text << '"';
    }
  }
}

// ============================================================================================
// Log level from the environment

TEST(LogLevelEnv, Values) {
  const std::pair<const char*, std::optional<LogLevel>> table[] = {
      {"0", LogLevel::Debug}, {"1", LogLevel::Info}, {"2", LogLevel::Warning}, {"3", LogLevel::Error},
      {"4", LogLevel::Off},   {"5", std::nullopt},   {"-1", std::nullopt},     {"", std::nullopt},
      {"01", std::nullopt},   {"1 ", std::nullopt},  {"info", std::nullopt},   {"a", std::nullopt}};
  for (auto& [text, expected] : table) {
    EnvVar env("ASCEND_GLOBAL_LOG_LEVEL", text);
    EXPECT_EQ(arun::log_level_from_env(), expected) << '"' << text << '"';
  }
  EnvVar unset("ASCEND_GLOBAL_LOG_LEVEL", nullptr);
  EXPECT_EQ(arun::log_level_from_env(), std::nullopt);
}

// ============================================================================================
// Plugin options

// The simulated Ascend device's schema as its plugin declares it (names and defaults as agreed;
// the ranges here are this test's own).
const OptionSpec kAscendSpecs[] = {
    {"device_count", OptionType::Integer, 1, 16, "2", "NPUs exposed"},
    {"soc_name", OptionType::String, 0, 0, "\"Ascend910B3\"", "SoC name"},
    {"memory", OptionType::Bytes, double(1ull << 20), double(1ull << 40), "\"16GiB\"", "device memory"},
    {"ai_cores", OptionType::Integer, 1, 64, "20", "AI cores"},
    {"vector_cores", OptionType::Integer, 0, 128, "40", "vector cores"},
    {"copy_engines", OptionType::Integer, 1, 16, "4", "DMA engines"},
    {"l2_cache", OptionType::Bytes, 0, double(1ull << 32), "\"192MiB\"", "L2 size"},
};
constexpr uint32_t kAscendCount = std::size(kAscendSpecs);

const OptionSpec kMixedSpecs[] = {
    {"count", OptionType::Integer, -5, 10, "1", ""},
    {"ratio", OptionType::Float, 0.0, 1.0, "0.5", ""},
    {"fast", OptionType::Boolean, 0, 0, "false", ""},
    {"label", OptionType::String, 0, 0, "\"x\"", ""},
    {"size", OptionType::Bytes, 4096, double(1ull << 30), "4096", ""},
    {"no_default", OptionType::Integer, 0, 100, nullptr, ""},
};
constexpr uint32_t kMixedCount = std::size(kMixedSpecs);

toml::table Table(std::string_view text) {
  return toml::parse(text, std::string_view("opts.toml"));
}

Status Validate(std::string_view text, OptionValues* out, const OptionSpec* specs = kMixedSpecs,
                uint32_t count = kMixedCount) {
  toml::table t = Table(text);
  return arun::validate_plugin_options(t, specs, count, "opts.toml: plugin[0]", out);
}

TEST(PluginOptions, DefaultsFilled) {
  OptionValues v;
  Status s = Validate("", &v);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(v.get_int("count", -99), 1);
  EXPECT_DOUBLE_EQ(v.get_double("ratio", -1), 0.5);
  EXPECT_TRUE(v.has("fast"));
  EXPECT_FALSE(v.get_bool("fast", true));
  EXPECT_EQ(v.get_string("label"), "x");
  EXPECT_EQ(v.get_int("size"), 4096);
  EXPECT_FALSE(v.has("no_default"));
  EXPECT_EQ(v.all().size(), 5u);
}

TEST(PluginOptions, ValuesOfEveryType) {
  OptionValues v;
  Status s = Validate("count = -5\nratio = 1\nfast = true\nlabel = \"y\"\nsize = \"1GiB\"\nno_default = 7\n", &v);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(v.get_int("count"), -5);
  EXPECT_DOUBLE_EQ(v.get_double("ratio"), 1.0);  // Float accepts an integer
  EXPECT_TRUE(std::holds_alternative<double>(v.all().at("ratio")));
  EXPECT_TRUE(v.get_bool("fast"));
  EXPECT_EQ(v.get_string("label"), "y");
  EXPECT_EQ(v.get_int("size"), int64_t(1) << 30);
  EXPECT_TRUE(std::holds_alternative<int64_t>(v.all().at("size")));
  EXPECT_EQ(v.get_int("no_default"), 7);
}

TEST(PluginOptions, BytesAcceptsIntegerAndStrings) {
  OptionValues v;
  ASSERT_TRUE(Validate("size = 8192\n", &v).ok());
  EXPECT_EQ(v.get_int("size"), 8192);
  ASSERT_TRUE(Validate("size = \"512 MiB\"\n", &v).ok());
  EXPECT_EQ(v.get_int("size"), int64_t(512) << 20);
  ASSERT_TRUE(Validate("size = \"0.5GB\"\n", &v).ok());
  EXPECT_EQ(v.get_int("size"), 500000000);
}

TEST(PluginOptions, UnknownKeyListsValidKeysWithTypes) {
  OptionValues v;
  Status s = Validate("count = 1\ncolor = 3\n", &v);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(),
            "opts.toml:2:1: plugin[0].options.color: unknown option (valid: count (integer), ratio (float), "
            "fast (boolean), label (string), size (bytes), no_default (integer))");
}

TEST(PluginOptions, NoOptionsAccepted) {
  OptionValues v;
  EXPECT_TRUE(Validate("", &v, nullptr, 0).ok());
  Status s = Validate("x = 1\n", &v, nullptr, 0);
  ExpectError(s, Errc::file_attr_invalid, {"options.x", "this plugin takes no options"});
}

TEST(PluginOptions, WrongTypes) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"count = 1.5\n", "opts.toml:1:9: plugin[0].options.count: expected an integer, got float"},
      {"count = \"3\"\n", "opts.toml:1:9: plugin[0].options.count: expected an integer, got string"},
      {"ratio = \"0.1\"\n", "opts.toml:1:9: plugin[0].options.ratio: expected a number, got string"},
      {"fast = 1\n", "opts.toml:1:8: plugin[0].options.fast: expected a boolean (true or false), got integer"},
      {"label = 3\n", "opts.toml:1:9: plugin[0].options.label: expected a string, got integer"},
      {"label = [\"a\"]\n", "opts.toml:1:9: plugin[0].options.label: expected a string, got array"},
      {"size = 1.5\n",
       "opts.toml:1:8: plugin[0].options.size: expected a byte size (an integer, or a string such as \"16GiB\"), "
       "got float"},
      {"[size]\n",
       "opts.toml:1:1: plugin[0].options.size: expected a byte size (an integer, or a string such as "
       "\"16GiB\"), got table"},
  };
  for (const Case& c : cases) {
    OptionValues v;
    Status s = Validate(c.text, &v);
    EXPECT_EQ(s.code(), Errc::file_attr_invalid) << c.text;
    EXPECT_EQ(s.message(), c.expected) << c.text;
  }
}

TEST(PluginOptions, OutOfRange) {
  struct Case {
    const char* text;
    const char* expected;
  };
  const Case cases[] = {
      {"count = 11\n", "opts.toml:1:9: plugin[0].options.count: 11 is out of range [-5, 10]"},
      {"count = -6\n", "opts.toml:1:9: plugin[0].options.count: -6 is out of range [-5, 10]"},
      {"ratio = 1.5\n", "opts.toml:1:9: plugin[0].options.ratio: 1.5 is out of range [0, 1]"},
      {"ratio = -1\n", "opts.toml:1:9: plugin[0].options.ratio: -1 is out of range [0, 1]"},
      {"ratio = nan\n", "opts.toml:1:9: plugin[0].options.ratio: nan is out of range [0, 1]"},
      {"size = \"2GiB\"\n",
       "opts.toml:1:8: plugin[0].options.size: 2 GiB (2147483648 bytes) is out of range [4 KiB, 1 GiB]"},
      {"size = 100\n", "opts.toml:1:8: plugin[0].options.size: 100 B is out of range [4 KiB, 1 GiB]"},
      {"size = \"1.5GiB\"\n",
       "opts.toml:1:8: plugin[0].options.size: 1.50 GiB (1610612736 bytes) is out of range [4 KiB, 1 GiB]"},
      {"size = -1\n", "opts.toml:1:8: plugin[0].options.size: -1 is negative; a byte size must be 0 or more"},
  };
  for (const Case& c : cases) {
    OptionValues v;
    Status s = Validate(c.text, &v);
    EXPECT_EQ(s.code(), Errc::file_attr_invalid) << c.text;
    EXPECT_EQ(s.message(), c.expected) << c.text;
  }
  OptionValues v;
  EXPECT_TRUE(Validate("count = 10\nratio = 0\nsize = \"1GiB\"\n", &v).ok());  // bounds are inclusive
  EXPECT_TRUE(Validate("count = -5\nratio = 1.0\nsize = \"4KiB\"\n", &v).ok());
}

TEST(PluginOptions, BadByteString) {
  OptionValues v;
  Status s = Validate("size = \"lots\"\n", &v);
  ExpectError(s, Errc::file_attr_invalid,
              {"opts.toml:1:8: plugin[0].options.size: \"lots\" is not a byte size", "GiB", "\"16GiB\""});
}

TEST(PluginOptions, BytesAboveInt64AreRejected) {
  const OptionSpec spec[] = {{"huge", OptionType::Bytes, 0, 1e30, nullptr, ""}};
  OptionValues v;
  toml::table t = Table("huge = \"16777215TiB\"\n");
  Status s = arun::validate_plugin_options(t, spec, 1, "o: plugin[0]", &v);
  ExpectError(s, Errc::file_attr_invalid, {"options.huge", "out of range"});
}

TEST(PluginOptions, FailureLeavesOutputUntouched) {
  OptionValues v;
  v.set("keep", int64_t{1});
  EXPECT_FALSE(Validate("count = 100\n", &v).ok());
  EXPECT_TRUE(v.has("keep"));
  EXPECT_EQ(v.all().size(), 1u);
}

TEST(PluginOptions, InvalidSchemaDefaultIsInternalError) {
  const OptionSpec bad_syntax[] = {{"n", OptionType::Integer, 0, 10, "not toml", ""}};
  const OptionSpec bad_type[] = {{"n", OptionType::Integer, 0, 10, "\"two\"", ""}};
  const OptionSpec bad_range[] = {{"n", OptionType::Integer, 0, 10, "11", ""}};
  for (const OptionSpec* spec : {bad_syntax, bad_type, bad_range}) {
    OptionValues v;
    toml::table empty;
    Status s = arun::validate_plugin_options(empty, spec, 1, "x.toml: plugin[3]", &v);
    ExpectError(s, Errc::internal_error, {"x.toml: plugin[3]", "option n", "default", spec->default_value});
  }
}

TEST(PluginOptions, OptionsFromAParsedConfigKeepPositions) {
  RuntimeConfig cfg;
  Status s = parse("[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n[plugin.options]\ndevice_count = 99\n", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  OptionValues v;
  s = arun::validate_plugin_options(cfg.plugins[0].options, kAscendSpecs, kAscendCount, cfg.plugins[0].origin, &v);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), "t.toml:5:16: plugin[0].options.device_count: 99 is out of range [1, 16]");
}

TEST(PluginOptions, OriginMayAlreadyNameTheOptionsTable) {
  RuntimeConfig cfg;
  Status s = parse("[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n[plugin.options]\nsoc = 1\n", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  OptionValues v;
  s = arun::validate_plugin_options(cfg.plugins[0].options, kAscendSpecs, kAscendCount,
                                    cfg.plugins[0].origin + ".options", &v);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_CONTAINS(s.message(), "t.toml:5:1: plugin[0].options.soc: unknown option (valid: device_count (integer), ");
  toml::table copy = cfg.plugins[0].options;
  s = arun::validate_plugin_options(copy, kAscendSpecs, kAscendCount, "/etc/a.toml: plugin[1].options", &v);
  EXPECT_CONTAINS(s.message(), "plugin[1].options.soc: unknown option");
  EXPECT_EQ(s.message().find("options.options"), std::string::npos) << s.message();
}

TEST(PluginOptions, CopiedTableStillNamesFileAndKey) {
  toml::table original = Table("device_count = 0\n");
  toml::table copy = original;  // TOML++ does not copy source positions
  OptionValues v;
  Status s = arun::validate_plugin_options(copy, kAscendSpecs, kAscendCount, "/etc/a.toml: plugin[1]", &v);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_EQ(s.message(), "/etc/a.toml: plugin[1].options.device_count: 0 is out of range [1, 16]");
}

// ============================================================================================
// Shipped configurations

TEST(ShippedConfigs, DefaultToml) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file(kConfigDir + "/default.toml", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(cfg.log_level, LogLevel::Warning);
  ASSERT_EQ(cfg.plugins.size(), 2u);
  const auto& p = cfg.plugins[0];
  EXPECT_EQ(p.kind, PluginKind::Device);
  EXPECT_EQ(p.name, "ascend");
  EXPECT_TRUE(p.path.empty());
  // The transport libhccl uses between processes.
  EXPECT_EQ(cfg.plugins[1].kind, PluginKind::Collective);
  EXPECT_EQ(cfg.plugins[1].name, "gloo");
  EXPECT_EQ(cfg.scheduler_policy, "priority");
  EXPECT_EQ(cfg.scheduler_options["queue_depth"].value<int64_t>(), 1024);
  EXPECT_EQ(cfg.scheduler_options["aging_us"].value<int64_t>(), 0);
  EXPECT_EQ(cfg.scheduler_options.size(), 2u);
  EXPECT_EQ(cfg.allocator_policy, "direct");
  EXPECT_TRUE(cfg.allocator_options.empty());
  EXPECT_FALSE(cfg.profiler_enabled);
  EXPECT_TRUE(cfg.profiler_sinks.empty());
  EXPECT_EQ(cfg.profiler_default_sinks, (std::vector<std::string>{"timeline"}));
  EXPECT_EQ(cfg.profiler_aclprof_sinks, (std::vector<std::string>{"timeline", "msprof_csv"}));
  EXPECT_EQ(cfg.profiler_output_dir, "ascend-run-profile");

  OptionValues v;
  s = arun::validate_plugin_options(p.options, kAscendSpecs, kAscendCount, p.origin, &v);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(p.options.size(), kAscendCount);  // every option written out
  EXPECT_EQ(v.get_int("device_count"), 2);
  EXPECT_EQ(v.get_string("soc_name"), "Ascend910B3");
  EXPECT_EQ(v.get_int("memory"), int64_t(16) << 30);
  EXPECT_EQ(v.get_int("ai_cores"), 20);
  EXPECT_EQ(v.get_int("vector_cores"), 40);
  EXPECT_EQ(v.get_int("copy_engines"), 4);
  EXPECT_EQ(v.get_int("l2_cache"), int64_t(192) << 20);

  // The values written out are the schema's defaults.
  OptionValues defaults;
  ASSERT_TRUE(arun::validate_plugin_options(toml::table{}, kAscendSpecs, kAscendCount, "d", &defaults).ok());
  EXPECT_EQ(v.all(), defaults.all());
}

TEST(ShippedConfigs, NullToml) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file(kConfigDir + "/null.toml", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cfg.plugins.size(), 1u);
  const auto& p = cfg.plugins[0];
  EXPECT_EQ(p.kind, PluginKind::Device);
  EXPECT_EQ(p.name, "null");
  EXPECT_EQ(p.options.size(), 4u);
  EXPECT_EQ(p.options["device_count"].value<int64_t>(), 2);
  EXPECT_EQ(p.options["compute_units"].value<int64_t>(), 2);
  EXPECT_EQ(p.options["copy_units"].value<int64_t>(), 1);
  EXPECT_EQ(p.options["memory"].value<std::string>(), "256MiB");
}

TEST(ShippedConfigs, SingleCoreToml) {
  RuntimeConfig cfg;
  Status s = arun::load_config_file(kConfigDir + "/single-core.toml", &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cfg.plugins.size(), 1u);
  const auto& p = cfg.plugins[0];
  EXPECT_EQ(p.name, "ascend");
  OptionValues v;
  s = arun::validate_plugin_options(p.options, kAscendSpecs, kAscendCount, p.origin, &v);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(v.get_int("device_count"), 1);
  EXPECT_EQ(v.get_int("ai_cores"), 1);
  EXPECT_EQ(v.get_int("copy_engines"), 1);
  EXPECT_EQ(v.get_int("memory"), int64_t(16) << 30);  // the rest keep their defaults
}

TEST(ShippedConfigs, EveryShippedTomlParses) {
  int seen = 0;
  for (const auto& entry : fs::directory_iterator(kConfigDir)) {
    if (entry.path().extension() != ".toml") continue;
    ++seen;
    RuntimeConfig cfg;
    Status s = arun::load_config_file(entry.path().string(), &cfg);
    EXPECT_TRUE(s.ok()) << entry.path() << ": " << s.message();
  }
  EXPECT_GE(seen, 3);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Defaults from the installed default config (config/default_config.hpp): the core names no plugin.

namespace {
const char* kDefaultText =
    "[[plugin]]\nkind = \"device\"\nname = \"dflt\"\n[plugin.options]\ndevice_count = 3\n"
    "[profiler]\ndefault_sinks = [\"tl\"]\n";
}  // namespace

TEST(DefaultConfig, EmptyConfigTakesDevicesAndSinksFromTheDefault) {
  TempDir dir;
  std::string def = dir.write("default.toml", kDefaultText);
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(dir.write("empty.toml", ""), &cfg).ok());
  Status s = arun::apply_default_config(def, &cfg);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(cfg.plugins.size(), 1u);
  EXPECT_EQ(cfg.plugins[0].kind, PluginKind::Device);
  EXPECT_EQ(cfg.plugins[0].name, "dflt");
  EXPECT_EQ(cfg.plugins[0].options["device_count"].value<int64_t>(), 3);
  EXPECT_EQ(cfg.plugins[0].origin, def + ": plugin[0]");  // messages name the file it came from
  EXPECT_EQ(cfg.profiler_default_sinks, (std::vector<std::string>{"tl"}));
}

TEST(DefaultConfig, OwnDevicePluginAndSinksAreKept) {
  TempDir dir;
  std::string def = dir.write("default.toml", kDefaultText);
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(dir.write("own.toml",
                                               "[[plugin]]\nkind = \"device\"\nname = \"mine\"\n"
                                               "[[plugin]]\nkind = \"profiler\"\nname = \"p\"\n"
                                               "[profiler]\ndefault_sinks = [\"s\"]\n"),
                                     &cfg)
                  .ok());
  ASSERT_TRUE(arun::apply_default_config(def, &cfg).ok());
  ASSERT_EQ(cfg.plugins.size(), 2u);
  EXPECT_EQ(cfg.plugins[0].name, "mine");
  EXPECT_EQ(cfg.plugins[1].name, "p");
  EXPECT_EQ(cfg.profiler_default_sinks, (std::vector<std::string>{"s"}));
}

TEST(DefaultConfig, ProfilerOnlyConfigStillGetsTheDefaultDevice) {
  TempDir dir;
  std::string def = dir.write("default.toml", kDefaultText);
  RuntimeConfig cfg;
  ASSERT_TRUE(
      arun::load_config_file(dir.write("p.toml", "[[plugin]]\nkind = \"profiler\"\nname = \"p\"\n"), &cfg).ok());
  ASSERT_TRUE(arun::apply_default_config(def, &cfg).ok());
  ASSERT_EQ(cfg.plugins.size(), 2u);
  EXPECT_EQ(cfg.plugins[0].name, "p");
  EXPECT_EQ(cfg.plugins[1].name, "dflt");
}

TEST(DefaultConfig, MissingDefaultOrTheDefaultItselfAddsNothing) {
  TempDir dir;
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(dir.write("empty.toml", ""), &cfg).ok());
  ASSERT_TRUE(arun::apply_default_config((dir.path() / "absent.toml").string(), &cfg).ok());
  EXPECT_TRUE(cfg.plugins.empty());
  EXPECT_TRUE(cfg.profiler_default_sinks.empty());

  // The default config read as the configuration is not merged into itself.
  std::string def = dir.write("default.toml", kDefaultText);
  RuntimeConfig self;
  ASSERT_TRUE(arun::load_config_file(def, &self).ok());
  ASSERT_TRUE(arun::apply_default_config(def, &self).ok());
  EXPECT_EQ(self.plugins.size(), 1u);
}

TEST(DefaultConfig, ABrokenDefaultIsReported) {
  TempDir dir;
  std::string def = dir.write("default.toml", "[runtime]\nbogus = 1\n");
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(dir.write("empty.toml", ""), &cfg).ok());
  Status s = arun::apply_default_config(def, &cfg);
  EXPECT_EQ(s.code(), Errc::file_attr_invalid);
  EXPECT_NE(s.message().find("default.toml"), std::string::npos) << s.message();
}

TEST(DefaultConfig, ShippedDefaultNamesTheDevicePluginAndSink) {
  // The shipped default.toml is what an empty configuration or aclInit(NULL) loads.
  TempDir dir;
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_config_file(dir.write("empty.toml", ""), &cfg).ok());
  ASSERT_TRUE(arun::apply_default_config(kConfigDir + "/default.toml", &cfg).ok());
  ASSERT_EQ(cfg.plugins.size(), 2u);
  EXPECT_EQ(cfg.plugins[0].name, "ascend");
  EXPECT_EQ(cfg.plugins[1].kind, PluginKind::Collective);
  EXPECT_EQ(cfg.plugins[1].name, "gloo");
  EXPECT_EQ(cfg.profiler_default_sinks, (std::vector<std::string>{"timeline"}));
}

TEST(DefaultConfig, OwnCollectivePluginIsKept) {
  // A configuration naming its own collective plugin does not get the default's as well.
  TempDir dir;
  RuntimeConfig cfg;
  ASSERT_TRUE(
      arun::load_config_file(dir.write("own.toml", "[[plugin]]\nkind = \"collective\"\nname = \"mine\"\n"), &cfg).ok());
  ASSERT_TRUE(arun::apply_default_config(kConfigDir + "/default.toml", &cfg).ok());
  ASSERT_EQ(cfg.plugins.size(), 2u);
  EXPECT_EQ(cfg.plugins[0].name, "mine");
  EXPECT_EQ(cfg.plugins[1].kind, PluginKind::Device);
}

TEST(DefaultConfig, NoFileAtAllLoadsNoPlugin) {
  RuntimeConfig cfg;
  ASSERT_TRUE(arun::load_runtime_config("", "built-in defaults", &cfg).ok());
  EXPECT_TRUE(cfg.plugins.empty());
  EXPECT_EQ(cfg.source_kind, "built-in defaults");
}

// ---------------------------------------------------------------------------------------------
// Setting precedence (config/setting.hpp): override > environment > config > default.

TEST(ChooseSetting, Precedence) {
  using From = arun::SettingChoice::From;
  {
    EnvVar env("ARUN_TEST_SETTING", "env-value");
    auto c = arun::choose_setting("override()", std::string("ov"), "ARUN_TEST_SETTING", true);
    EXPECT_EQ(c.from, From::Override);
    EXPECT_EQ(c.source, "override()");
    EXPECT_EQ(c.text, "ov");
    c = arun::choose_setting("override()", std::nullopt, "ARUN_TEST_SETTING", true);
    EXPECT_EQ(c.from, From::Environment);
    EXPECT_EQ(c.source, "ARUN_TEST_SETTING");
    EXPECT_EQ(c.text, "env-value");
  }
  {
    EnvVar empty("ARUN_TEST_SETTING", "");  // set but empty: not an override
    auto c = arun::choose_setting("o", std::nullopt, "ARUN_TEST_SETTING", true);
    EXPECT_EQ(c.from, From::Config);
    EXPECT_EQ(c.source, "config");
    EXPECT_TRUE(c.text.empty());
    c = arun::choose_setting("o", std::nullopt, "ARUN_TEST_SETTING", false);
    EXPECT_EQ(c.from, From::Default);
    EXPECT_EQ(c.source, "default");
  }
}

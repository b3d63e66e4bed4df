// The Runtime object (init/finalize, devices, contexts, streams) with the stub device plugin,
// driven through the core directly rather than through the C API.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>

#include "runtime.hpp"

using namespace arun;

namespace {

std::string write_config(const std::string& name, const std::string& body) {
  std::string path = ::testing::TempDir() + "/" + name;
  std::ofstream(path) << body;
  return path;
}

std::string stub_config(int devices = 2, const std::string& extra = "") {
  return "[[plugin]]\nkind = \"device\"\nname = \"stub\"\npath = \"" ARUN_STUB_PLUGIN "\"\n[plugin.options]\n"
         "device_count = " + std::to_string(devices) + "\n" + extra;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

struct RuntimeTest : ::testing::Test {
  void TearDown() override {
    if (Runtime::instance()) (void)Runtime::finalize();
  }
};

}  // namespace

TEST_F(RuntimeTest, InitIsReferenceCountedAndFinalizeDropsEverything) {
  std::string cfg = write_config("a.toml", stub_config());
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  ASSERT_NE(Runtime::instance(), nullptr);
  EXPECT_EQ(Runtime::instance()->device_count(), 2u);
  EXPECT_EQ(Runtime::initialize(cfg.c_str()).code(), Errc::repeat_initialize);
  std::string other = write_config("b.toml", stub_config(1));
  Status differing = Runtime::initialize(other.c_str());
  EXPECT_EQ(differing.code(), Errc::invalid_param);
  EXPECT_TRUE(contains(differing.message(), "different configuration")) << differing.message();
  EXPECT_TRUE(Runtime::finalize().ok());
  EXPECT_EQ(Runtime::instance(), nullptr);
  EXPECT_EQ(Runtime::finalize().code(), Errc::repeat_finalize);
  // Sequential re-init works, with another configuration too.
  ASSERT_TRUE(Runtime::initialize(other.c_str()).ok());
  EXPECT_EQ(Runtime::instance()->device_count(), 1u);
}

TEST_F(RuntimeTest, ConfigErrorsNameTheFileKeyOrPlugin) {
  Status missing = Runtime::initialize("/nonexistent/arun.toml");
  EXPECT_EQ(missing.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(missing.message(), "/nonexistent/arun.toml")) << missing.message();

  std::string no_plugin = write_config("np.toml", "[[plugin]]\nkind = \"device\"\nname = \"absent\"\n");
  Status np = Runtime::initialize(no_plugin.c_str());
  EXPECT_EQ(np.code(), Errc::invalid_file);
  EXPECT_TRUE(contains(np.message(), "libarun_device_absent.so")) << np.message();

  std::string bad_option = write_config("bo.toml", stub_config(2, "warp_size = 32\n"));
  Status bo = Runtime::initialize(bad_option.c_str());
  EXPECT_EQ(bo.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(bo.message(), "warp_size")) << bo.message();
  EXPECT_TRUE(contains(bo.message(), "compute_units")) << bo.message();  // lists the valid keys

  std::string range = write_config("r.toml", stub_config(99));
  Status r = Runtime::initialize(range.c_str());
  EXPECT_EQ(r.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(r.message(), "device_count")) << r.message();

  std::string policy = write_config("p.toml", stub_config() + "[scheduler]\npolicy = \"lottery\"\n");
  Status p = Runtime::initialize(policy.c_str());
  EXPECT_EQ(p.code(), Errc::file_attr_invalid);
  EXPECT_TRUE(contains(p.message(), "lottery") && contains(p.message(), "fifo")) << p.message();
  EXPECT_EQ(Runtime::instance(), nullptr);  // nothing half-initialised remains
}

TEST_F(RuntimeTest, DefaultContextIsSharedAndResetIsCounted) {
  std::string cfg = write_config("c.toml", stub_config());
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  Runtime& rt = *Runtime::instance();
  EXPECT_EQ(rt.reset_device(0, false).code(), Errc::rt_context_release_error);
  EXPECT_EQ(rt.set_device(2).code(), Errc::rt_invalid_device_id);
  ASSERT_TRUE(rt.set_device(0).ok());
  Context* mine = rt.current_context();
  ASSERT_NE(mine, nullptr);
  Context* theirs = nullptr;
  std::thread([&] {
    ASSERT_TRUE(Runtime::instance()->set_device(0).ok());
    theirs = Runtime::instance()->current_context();
  }).join();
  EXPECT_EQ(mine, theirs);                     // one default context per device
  EXPECT_TRUE(rt.reset_device(0, false).ok());  // two sets, one reset: still there
  EXPECT_TRUE(rt.current_context() != nullptr);
  EXPECT_TRUE(rt.reset_device(0, false).ok());
  EXPECT_EQ(rt.current_context(), nullptr);     // released: the thread has no context now
  EXPECT_EQ(rt.reset_device(0, false).code(), Errc::rt_context_release_error);
}

TEST_F(RuntimeTest, DestroyedHandlesAreRecognised) {
  std::string cfg = write_config("d.toml", stub_config());
  ASSERT_TRUE(Runtime::initialize(cfg.c_str()).ok());
  Runtime& rt = *Runtime::instance();
  void* ctx = nullptr;
  ASSERT_TRUE(rt.create_context(1, &ctx).ok());
  void* stream = nullptr;
  ASSERT_TRUE(rt.create_stream(3, 0, &stream).ok());
  std::shared_ptr<Stream> s;
  ASSERT_TRUE(rt.resolve_stream(stream, &s).ok());
  EXPECT_EQ(s->priority(), 3u);
  s.reset();
  ASSERT_TRUE(rt.destroy_stream(stream, false).ok());
  EXPECT_EQ(rt.resolve_stream(stream, &s).code(), Errc::rt_invalid_handle);
  ASSERT_TRUE(rt.destroy_context(ctx).ok());
  EXPECT_EQ(rt.destroy_context(ctx).code(), Errc::rt_invalid_handle);
  EXPECT_EQ(rt.set_current_context(ctx).code(), Errc::rt_invalid_handle);
  EXPECT_EQ(rt.current_context(), nullptr);
}

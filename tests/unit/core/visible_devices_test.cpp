// ASCEND_RT_VISIBLE_DEVICES: the parser, read as CANN documents it, and the renumbering it causes.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

#include "runtime/runtime.hpp"
#include "runtime/visible_devices.hpp"

using arun::visible_devices;
using Ids = std::vector<uint32_t>;

TEST(VisibleDevices, UnsetOrEmptyShowsEveryDevice) {
  EXPECT_EQ(visible_devices(nullptr, 3), (Ids{0, 1, 2}));
  EXPECT_EQ(visible_devices("", 3), (Ids{0, 1, 2}));
  EXPECT_EQ(visible_devices(nullptr, 0), Ids{});
}

TEST(VisibleDevices, AscendingIdsAreKeptInOrder) {
  EXPECT_EQ(visible_devices("1", 8), Ids{1});
  EXPECT_EQ(visible_devices("1,2,3", 8), (Ids{1, 2, 3}));
  EXPECT_EQ(visible_devices("0,7", 8), (Ids{0, 7}));
}

TEST(VisibleDevices, ReadingStopsAtTheFirstBadToken) {
  // CANN's examples: a space before 2 keeps only 1; an id past the last device keeps those before it.
  EXPECT_EQ(visible_devices("1, 2,3", 8), Ids{1});
  EXPECT_EQ(visible_devices("1,3,8", 8), (Ids{1, 3}));
  EXPECT_EQ(visible_devices("1,2a,3", 8), Ids{1});
  EXPECT_EQ(visible_devices("1,,3", 8), Ids{1});
  EXPECT_EQ(visible_devices("1,", 8), Ids{1});
  EXPECT_EQ(visible_devices("x", 8), Ids{});
  EXPECT_EQ(visible_devices("-1", 8), Ids{});
  // Only ascending lists are supported: a repeat or a step back ends the list.
  EXPECT_EQ(visible_devices("2,1", 8), Ids{2});
  EXPECT_EQ(visible_devices("2,2", 8), Ids{2});
  // A long digit run is an id past the last device, not an overflow that wraps to a valid one.
  EXPECT_EQ(visible_devices("0,18446744073709551617", 8), Ids{0});
  EXPECT_EQ(visible_devices("00000000000000000000001", 8), Ids{1});
}

TEST(VisibleDevices, RuntimeRenumbersTheVisibleDevices) {
  std::string path = ::testing::TempDir() + "/visible.toml";
  std::ofstream(path) << "[[plugin]]\nkind = \"device\"\nname = \"null\"\npath = \"" ARUN_NULL_PLUGIN
                         "\"\n[plugin.options]\ndevice_count = 3\n"
                         "[runtime]\nplugin_search_paths = [\"" ARUN_BUILD_PLUGIN_DIR "\"]\n";
  ASSERT_EQ(setenv("ASCEND_RT_VISIBLE_DEVICES", "1,2", 1), 0);
  arun::Status st = arun::Runtime::initialize(path.c_str());
  unsetenv("ASCEND_RT_VISIBLE_DEVICES");
  ASSERT_TRUE(st.ok()) << st.message();
  arun::Runtime* rt = arun::Runtime::instance();
  EXPECT_EQ(rt->device_count(), 2u);
  EXPECT_EQ(rt->physical_device_id(0), 1u);
  EXPECT_EQ(rt->physical_device_id(1), 2u);
  EXPECT_NE(rt->device(0), nullptr);
  EXPECT_EQ(rt->device(2), nullptr);
  EXPECT_EQ(rt->check_device_id(2).code(), arun::Errc::rt_invalid_device_id);
  EXPECT_TRUE(arun::Runtime::finalize().ok());
  // Unset again: all three, numbered as the plugin numbers them.
  ASSERT_TRUE(arun::Runtime::initialize(path.c_str()).ok());
  EXPECT_EQ(arun::Runtime::instance()->device_count(), 3u);
  EXPECT_EQ(arun::Runtime::instance()->physical_device_id(2), 2u);
  EXPECT_TRUE(arun::Runtime::finalize().ok());
}

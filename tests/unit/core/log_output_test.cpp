// CANN's log variables: ASCEND_SLOG_PRINT_TO_STDOUT and ASCEND_PROCESS_LOG_PATH choose where the
// runtime's log lines go.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "base/logging.hpp"

namespace fs = std::filesystem;
using arun::LogOutput;

namespace {

struct LogOutputTest : ::testing::Test {
  void TearDown() override {
    unsetenv("ASCEND_SLOG_PRINT_TO_STDOUT");
    unsetenv("ASCEND_PROCESS_LOG_PATH");
    (void)arun::apply_log_output_env();  // back to stderr for the other tests
  }
};

std::string read_file(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST_F(LogOutputTest, ProcessLogPathWritesCannsPlogFile) {
  const fs::path root = fs::path(::testing::TempDir()) / ("plog-root-" + std::to_string(getpid()));
  fs::remove_all(root);
  setenv("ASCEND_PROCESS_LOG_PATH", root.c_str(), 1);
  LogOutput out = arun::apply_log_output_env();
  ASSERT_EQ(out.kind, LogOutput::Kind::File) << out.error;
  const std::string prefix = (root / "debug/plog").string() + "/plog-" + std::to_string(getpid()) + "_";
  EXPECT_EQ(out.path.rfind(prefix, 0), 0u) << out.path;
  EXPECT_EQ(out.path.substr(out.path.size() - 4), ".log");
  arun::log().error("log-output-marker-1");
  arun::log().flush();
  EXPECT_NE(read_file(out.path).find("log-output-marker-1"), std::string::npos);
  // Applying the same variables again keeps the same file.
  EXPECT_EQ(arun::apply_log_output_env().path, out.path);
  fs::remove_all(root);
}

TEST_F(LogOutputTest, PrintToStdoutWinsOverTheLogPath) {
  setenv("ASCEND_PROCESS_LOG_PATH", ::testing::TempDir().c_str(), 1);
  setenv("ASCEND_SLOG_PRINT_TO_STDOUT", "1", 1);
  ASSERT_EQ(arun::apply_log_output_env().kind, LogOutput::Kind::Stdout);
  ::testing::internal::CaptureStdout();
  arun::log().error("log-output-marker-2");
  arun::log().flush();
  std::fflush(stdout);
  EXPECT_NE(::testing::internal::GetCapturedStdout().find("log-output-marker-2"), std::string::npos);
}

TEST_F(LogOutputTest, OtherValuesKeepTheDefault) {
  // CANN: 0 is the default output and any other value is invalid (the default again).
  for (const char* v : {"0", "2", "yes", ""}) {
    setenv("ASCEND_SLOG_PRINT_TO_STDOUT", v, 1);
    EXPECT_EQ(arun::apply_log_output_env().kind, LogOutput::Kind::Stderr) << v;
  }
}

TEST_F(LogOutputTest, UnwritableLogPathFallsBackToStderrWithAReason) {
  const fs::path file = fs::path(::testing::TempDir()) / ("plain-file-" + std::to_string(getpid()));
  std::ofstream(file) << "x";
  setenv("ASCEND_PROCESS_LOG_PATH", file.c_str(), 1);  // a file where a folder must be created
  LogOutput out = arun::apply_log_output_env();
  EXPECT_EQ(out.kind, LogOutput::Kind::Stderr);
  EXPECT_NE(out.error.find("ASCEND_PROCESS_LOG_PATH="), std::string::npos) << out.error;
  fs::remove(file);
}

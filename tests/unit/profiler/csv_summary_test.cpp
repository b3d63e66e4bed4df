// The msprof_csv and summary sinks on a known workload: msprof's column names, one row per task,
// statistics that add up to the work done.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "csv_reader.hpp"
#include "profiler_workload.hpp"

namespace fs = std::filesystem;

namespace arun::test {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (auto& c : v) s += (s.empty() ? "" : ",") + c;
  return s;
}

int column(const std::vector<std::string>& header, const std::string& name) {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return int(i);
  ADD_FAILURE() << "no column " << name << " in " << join(header);
  return 0;
}

TEST(MsprofCsvAndSummary, RowsAndTotalsMatchTheWorkDone) {
  fs::path dir = fs::temp_directory_path() / ("arun-prof-csv-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::path cfg = dir / "csv.toml";
  std::ofstream(cfg) << "[[plugin]]\nkind = \"device\"\nname = \"ascend\"\n\n[[plugin]]\nkind = \"profiler\"\n"
                     << "name = \"summary\"\n[plugin.options]\nprint = false\n\n[profiler]\nenabled = true\n"
                     << "sinks = [\"msprof_csv\", \"summary\"]\noutput_dir = \"" << (dir / "out").string() << "\"\n";
  ASSERT_EQ(aclInit(cfg.string().c_str()), ACL_SUCCESS) << aclGetRecentErrMsg();
  WorkloadCounts n = run_workload(5, false);
  ASSERT_EQ(aclFinalize(), ACL_SUCCESS);

  // msprof's layout: PROF_*/mindstudio_profiler_output/<view>_<timestamp>.csv, one file per view.
  auto views = msprof_views(dir / "out");
  for (const auto& [view, file] : views)
    EXPECT_EQ(file.filename().string().size() - view.size(), 1 + 14 + 4) << file << ": not <view>_YYYYmmddHHMMSS.csv";
  ASSERT_EQ(views.size(), 4u);

  auto summary = read_csv(views["op_summary"]);
  ASSERT_FALSE(summary.empty());
  // msprof's documented columns, in its order (an export with the model columns and the first two
  // PipeUtilization metrics).
  EXPECT_EQ(join(summary[0]),
            "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,"
            "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,"
            "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,"
            "Context ID,aicore_time(us),aic_total_cycles");
  // Device tasks only: the synchronous aclrtMemcpy ran on the calling thread (no device task in msprof).
  EXPECT_EQ(summary.size() - 1, size_t(n.tasks()));
  for (size_t i = 1; i < summary.size(); ++i) EXPECT_EQ(summary[i].size(), summary[0].size()) << join(summary[i]);
  // Task IDs count each stream's tasks from 1 in order.
  std::map<std::string, int> per_stream;
  const int sid = column(summary[0], "Stream ID"), tid = column(summary[0], "Task ID");
  for (size_t i = 1; i < summary.size(); ++i) {
    EXPECT_EQ(std::stoi(summary[i][tid]), ++per_stream[summary[i][sid]]) << join(summary[i]);
  }
  EXPECT_EQ(per_stream.size(), size_t(n.streams));
  // msprof's task types: no DMA / HOST of our own.
  std::map<std::string, int> task_types;
  for (size_t i = 1; i < summary.size(); ++i) ++task_types[summary[i][column(summary[0], "Task Type")]];
  EXPECT_EQ(task_types["AI_CORE"], n.device_tasks);
  EXPECT_EQ(task_types["MEMCPY_ASYNC"], n.copies_h2d + n.copies_d2h + n.memsets);
  EXPECT_EQ(task_types.size(), 2u);

  auto stat = read_csv(views["op_statistic"]);
  ASSERT_FALSE(stat.empty());
  EXPECT_EQ(join(stat[0]),
            "Device_id,Model Name,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),"
            "Max Time(us),Ratio(%)");
  std::map<std::string, int> counts;
  double ratio = 0;
  for (size_t i = 1; i < stat.size(); ++i) {
    counts[stat[i][2] + "/" + stat[i][3]] = std::stoi(stat[i][4]);
    ratio += std::stod(stat[i][9]);
    EXPECT_LE(std::stod(stat[i][6]), std::stod(stat[i][7])) << "Min > Avg: " << join(stat[i]);
    EXPECT_LE(std::stod(stat[i][7]), std::stod(stat[i][8])) << "Avg > Max: " << join(stat[i]);
  }
  EXPECT_EQ(counts["device_task/AI_CORE"], n.device_tasks);
  // Copies and memsets are MEMCPY_ASYNC tasks, as msprof names non-operator tasks by their task type.
  EXPECT_EQ(counts["MEMCPY_ASYNC/MEMCPY_ASYNC"], n.copies_h2d + n.copies_d2h + n.memsets);
  EXPECT_EQ(stat.size() - 1, 2u);
  EXPECT_NEAR(ratio, 100.0, 0.01);

  auto api = read_csv(views["api_statistic"]);
  ASSERT_FALSE(api.empty());
  EXPECT_EQ(join(api[0]), "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance");
  std::map<std::string, int> calls;
  for (size_t i = 1; i < api.size(); ++i) calls[api[i][2]] = std::stoi(api[i][4]);
  EXPECT_EQ(calls["aclrtMemcpyAsync"], n.copies_h2d + n.copies_d2h);
  EXPECT_EQ(calls["arunLaunchDeviceTask"], n.device_tasks);
  EXPECT_EQ(calls["aclrtRecordEvent"], n.records);
  EXPECT_EQ(calls["aclrtStreamWaitEvent"], n.waits);
  EXPECT_EQ(calls["aclrtMemcpy"], n.sync_copies);

  auto task_time = read_csv(views["task_time"]);
  ASSERT_FALSE(task_time.empty());
  EXPECT_EQ(join(task_time[0]),
            "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)");
  EXPECT_EQ(task_time.size() - 1, size_t(n.tasks()));
  int async_copies = 0;
  for (size_t i = 1; i < task_time.size(); ++i) {
    EXPECT_LE(std::stod(task_time[i][6]), std::stod(task_time[i][7])) << join(task_time[i]);
    async_copies += task_time[i][2] == "MEMCPY_ASYNC";
  }
  EXPECT_EQ(async_copies, n.copies_h2d + n.copies_d2h + n.memsets);  // msprof's name for them

  fs::path report;
  for (auto& e : fs::directory_iterator(dir / "out"))
    if (e.path().filename().string().rfind("summary-", 0) == 0) report = e.path();
  ASSERT_FALSE(report.empty());
  std::stringstream text;
  text << std::ifstream(report).rdbuf();
  const std::string s = text.str();
  EXPECT_NE(s.find(" 0 dropped"), std::string::npos) << s;
  EXPECT_NE(s.find("Top tasks by total device time"), std::string::npos);
  EXPECT_NE(s.find("H2D"), std::string::npos);
  EXPECT_NE(s.find("D2H"), std::string::npos);
  EXPECT_NE(s.find("2 allocations, 2 frees"), std::string::npos) << s;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace arun::test

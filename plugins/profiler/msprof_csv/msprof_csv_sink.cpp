// msprof_csv: the CSV summaries msprof's export writes, with its file names, folders and column
// names, so scripts written for msprof output (globbing PROF_*/mindstudio_profiler_output/
// op_summary_*.csv) read ours. Files, in <output_dir>/PROF_<pid>_<start>/mindstudio_profiler_output/,
// each named <view>_<YYYYmmddHHMMSS of the session start>.csv:
//   op_summary     one row per device task, in start order per device
//   op_statistic   per device, OP Type and core type: count and total / min / avg / max time, share
//   api_statistic  per API: total, count, avg, min, max, variance of its duration
//   task_time      one row per device task (msprof's task_time view)
// Columns msprof fills from hardware counters or models this device has none of are "N/A".
// Times are microseconds; start times are wall-clock (Unix epoch) like msprof's.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "arun/plugin/plugin_abi.hpp"
#include "arun/plugin/profiler.hpp"
#include "sink_support.hpp"

namespace arun::sinks {
namespace {

class MsprofCsvSink final : public plugin::ProfilerSink {
 public:
  bool begin(const plugin::SessionInfo& info, char* error, size_t error_size) override {
    session_.assign(info);
    // The session's wall-clock start, local time as msprof names its files.
    const time_t start = static_cast<time_t>(info.base_unix_ns / 1000000000);
    const int millis = static_cast<int>((info.base_unix_ns / 1000000) % 1000);
    struct tm local {};
    localtime_r(&start, &local);
    char stamp[32];
    std::strftime(stamp, sizeof stamp, "%Y%m%d%H%M%S", &local);
    stamp_ = stamp;
    char ms[8];
    std::snprintf(ms, sizeof ms, "%03d", millis);
    dir_ = (std::filesystem::path(
                unique_path(session_.output_dir, "PROF_" + std::to_string(info.pid) + "_" + stamp_ + ms, "")) /
            "mindstudio_profiler_output")
               .string();
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      std::snprintf(error, error_size, "cannot create %s: %s", dir_.c_str(), ec.message().c_str());
      return false;
    }
    return true;
  }

  void consume(const Record* records, size_t count) override {
    for (size_t i = 0; i < count; ++i) {
      const Record& r = records[i];
      if (r.kind == RecordKind::Task) tasks_.push_back(r);
      if (r.kind == RecordKind::ApiCall) apis_.push_back(r);
    }
  }

  void end(const plugin::SessionTotals&) override {
    std::sort(tasks_.begin(), tasks_.end(), [](const Record& a, const Record& b) {
      return a.device != b.device ? a.device < b.device : a.t2 < b.t2;
    });
    write_op_summary();
    write_op_statistic();
    write_api_statistic();
    write_task_time();
  }

 private:
  std::string wall_us(uint64_t t) const {
    // In integers: a double holds a Unix time in microseconds only to about 0.25 us.
    const int64_t ns = session_.base_unix_ns + (static_cast<int64_t>(t) - static_cast<int64_t>(session_.base_ns));
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    return buf;
  }
  static std::string fmt(double v) {
    char buf[48];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
  }
  static std::string dur_us(const Record& r) { return fmt(r.t3 > r.t2 ? double(r.t3 - r.t2) / 1000.0 : 0.0); }
  static const char* core_type(const Record& r) {
    return is_sync_work(r) || is_host_call(r) ? "HOST" : is_copy_unit(r) ? "DMA" : "AI_CORE";
  }
  static std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  }
  // Work that is not a kernel on the AI cores: copies and memsets (on a copy engine, or synchronous on
  // the calling thread) and host calls.
  static bool is_kernel(const Record& r) { return !is_copy_unit(r) && !is_sync_work(r) && !is_host_call(r); }
  // The task type of non-kernel work; msprof names an asynchronous copy MEMCPY_ASYNC.
  static const char* msprof_task_type(const Record& r) {
    return r.subkind == uint16_t(plugin::TaskType::Copy) && !is_sync_work(r) ? "MEMCPY_ASYNC"
                                                                             : task_type_name(r.subkind);
  }
  void write(const char* view, const std::string& text) const {
    write_file_atomically((std::filesystem::path(dir_) / (std::string(view) + "_" + stamp_ + ".csv")).string(), text);
  }

  // Task ids: the position of each task in its stream, counted in start order (streams run in order).
  std::vector<uint64_t> task_ids() const {
    std::map<std::pair<int32_t, int32_t>, uint64_t> next;
    std::vector<uint64_t> ids;
    for (const auto& r : tasks_) ids.push_back(++next[{r.device, r.stream}]);
    return ids;
  }

  void write_op_summary() const {
    std::string out =
        "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,"
        "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Num\n";
    auto ids = task_ids();
    std::map<std::pair<int32_t, int32_t>, uint64_t> last_end;
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const Record& r = tasks_[i];
      auto key = std::make_pair(r.device, r.stream);
      auto it = last_end.find(key);
      double wait = it == last_end.end() || r.t2 < it->second ? 0.0 : double(r.t2 - it->second) / 1000.0;
      last_end[key] = r.t3;
      const std::string name = csv_field(session_.name(r.name));
      const bool compute = is_kernel(r);
      out += std::to_string(r.device) + ",N/A,4294967295," + std::to_string(ids[i]) + "," + std::to_string(r.stream) +
             ",N/A," + name + "," + name + ",N/A," + (compute ? "AI_CORE" : msprof_task_type(r)) + "," + wall_us(r.t2) +
             "," + dur_us(r) + "," + fmt(wait) + "," + (compute ? std::to_string(r.value1) : std::string("N/A")) + "\n";
    }
    write("op_summary", out);
  }

  void write_op_statistic() const {
    struct Stat {
      uint64_t count = 0;
      double total = 0, min = 0, max = 0;
    };
    std::map<std::tuple<int32_t, std::string, std::string>, Stat> stats;
    std::map<int32_t, double> device_total;
    for (const auto& r : tasks_) {
      const double d = r.t3 > r.t2 ? double(r.t3 - r.t2) / 1000.0 : 0.0;
      Stat& s = stats[{r.device, session_.name(r.name), core_type(r)}];
      s.min = s.count == 0 ? d : std::min(s.min, d);
      s.max = std::max(s.max, d);
      s.total += d;
      ++s.count;
      device_total[r.device] += d;
    }
    std::string out =
        "Device_id,Model Name,OP Type,Core Type,Count,Total Time(us),Min Time(us),Avg Time(us),"
        "Max Time(us),Ratio(%)\n";
    for (const auto& [key, s] : stats) {
      const double all = device_total[std::get<0>(key)];
      out += std::to_string(std::get<0>(key)) + ",N/A," + csv_field(std::get<1>(key)) + "," + std::get<2>(key) + "," +
             std::to_string(s.count) + "," + fmt(s.total) + "," + fmt(s.min) + "," + fmt(s.total / double(s.count)) +
             "," + fmt(s.max) + "," + fmt(all > 0 ? 100.0 * s.total / all : 0.0) + "\n";
    }
    write("op_statistic", out);
  }

  void write_api_statistic() const {
    struct Stat {
      uint64_t count = 0;
      double total = 0, sq = 0, min = 0, max = 0;
    };
    std::map<std::string, Stat> stats;
    for (const auto& r : apis_) {
      const double d = r.t1 > r.t0 ? double(r.t1 - r.t0) / 1000.0 : 0.0;
      Stat& s = stats[session_.name(r.name)];
      s.min = s.count == 0 ? d : std::min(s.min, d);
      s.max = std::max(s.max, d);
      s.total += d;
      s.sq += d * d;
      ++s.count;
    }
    std::string out = "Device_id,Level,API Name,Time(us),Count,Avg(us),Min(us),Max(us),Variance\n";
    for (const auto& [name, s] : stats) {
      const double avg = s.total / double(s.count);
      const double var = std::max(0.0, s.sq / double(s.count) - avg * avg);
      out += "host,AscendCL," + csv_field(name) + "," + fmt(s.total) + "," + std::to_string(s.count) + "," + fmt(avg) +
             "," + fmt(s.min) + "," + fmt(s.max) + "," + fmt(var) + "\n";
    }
    write("api_statistic", out);
  }

  void write_task_time() const {
    std::string out =
        "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n";
    auto ids = task_ids();
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const Record& r = tasks_[i];
      out += std::to_string(r.device) + "," + csv_field(session_.name(r.name)) + "," +
             (is_kernel(r) ? "KERNEL_AICORE" : msprof_task_type(r)) + "," + std::to_string(r.stream) + "," +
             std::to_string(ids[i]) + "," + dur_us(r) + "," + wall_us(r.t2) + "," + wall_us(r.t3) + "\n";
    }
    write("task_time", out);
  }

  Session session_;
  std::string dir_;
  std::string stamp_;  // YYYYmmddHHMMSS of the session start
  std::vector<Record> tasks_, apis_;
};

plugin::PluginObject* create(plugin::HostServices*, const plugin::OptionValues*, char*, size_t) {
  return new MsprofCsvSink();
}

}  // namespace

extern const plugin::PluginDescriptor kMsprofCsvDescriptor;
const plugin::PluginDescriptor kMsprofCsvDescriptor{
    ARUN_PLUGIN_HEADER,
    plugin::PluginKind::Profiler,
    "msprof_csv",
    "1.0.0",
    "",
    "msprof's CSV summaries: op_summary, op_statistic, api_statistic, task_time",
    nullptr,
    0,
    &create,
};

}  // namespace arun::sinks

ARUN_DECLARE_PLUGIN(arun::sinks::kMsprofCsvDescriptor)

// msprof_csv: the CSV summaries msprof's export writes, with its file names, folders and column
// names, so scripts written for msprof output (globbing PROF_*/mindstudio_profiler_output/
// op_summary_*.csv) read ours. Files, in <output_dir>/PROF_<pid>_<start>/mindstudio_profiler_output/,
// each named <view>_<YYYYmmddHHMMSS of the session start>.csv:
//   op_summary     one row per device task, in start order per device
//   op_statistic   per device, OP Type and core type: count and total / min / avg / max time, share
//   api_statistic  per API: total, count, avg, min, max, variance of its duration
//   task_time      one row per device task (msprof's task_time view)
// op_summary's columns are msprof's, in msprof's order, for an export with model columns (Model
// Name, Infer ID) and the PipeUtilization metrics' first two (aicore_time(us), aic_total_cycles).
// Operator columns come from the kernel record's detail text (plugin::OpDetailField): Op Name is the
// model node's name (the op type for a single operator), Model ID / Model Name / Infer ID the
// aclmdlExecute that ran it (msprof's 4294967295 / N/A outside a model), shapes / dtypes / formats
// the operator's tensors. Task types are msprof's (sink_support.hpp: AI_CORE, MEMCPY_ASYNC,
// HOSTFUNC_CALLBACK); a synchronous aclrtMemcpy / aclrtMemset is no device task and has no row.
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

// msprof's op_summary columns, in its order (export with model columns; PipeUtilization's first two).
constexpr const char* kOpSummaryHeader =
    "Device_id,Model Name,Model ID,Task ID,Stream ID,Infer ID,Op Name,OP Type,OP State,Task Type,"
    "Task Start Time(us),Task Duration(us),Task Wait Time(us),Block Dim,Mix Block Dim,HF32 Eligible,"
    "Input Shapes,Input Data Types,Input Formats,Output Shapes,Output Data Types,Output Formats,Context ID,"
    "aicore_time(us),aic_total_cycles";

// msprof's Model ID of a task outside any model (a single operator): UINT32_MAX.
constexpr const char* kNoModelId = "4294967295";

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
      if (r.kind == RecordKind::Task && !is_sync_work(r)) tasks_.push_back(r);
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
  static std::string csv_field(std::string_view s, bool quote = false) {
    if (!quote && s.find_first_of(",\"\n") == std::string_view::npos) return std::string(s);
    std::string out = "\"";
    for (char c : s) out += c == '"' ? std::string("\"\"") : std::string(1, c);
    return out + "\"";
  }
  // A kernel's operator details (plugin::OpDetailField), or none.
  struct Detail {
    bool present = false;
    std::string_view f[plugin::kOpDetailFields];
  };
  Detail detail(const Record& r) const {
    Detail d;
    if (r.subkind == uint16_t(plugin::TaskType::Kernel) && r.value0 != 0 && session_.strings != nullptr)
      d.present = plugin::split_op_detail(session_.strings->get(static_cast<uint32_t>(r.value0)), d.f);
    return d;
  }
  // Model Name as msprof prints it (CSV-quoted when needed): the model of an aclmdlExecute task
  // (value2 != 0), else N/A.
  std::string model_name(const Record& r) const {
    if (r.subkind != uint16_t(plugin::TaskType::Kernel) || r.value2 == 0) return "N/A";
    const Detail d = detail(r);
    const std::string_view name = d.f[static_cast<uint32_t>(plugin::OpDetailField::ModelName)];
    return d.present && !name.empty() ? csv_field(name) : std::string("N/A");
  }
  // The name msprof gives a task: its op type for an operator, the task type for other work.
  std::string op_type(const Record& r) const {
    return is_compute(r) ? session_.name(r.name) : std::string(msprof_task_type(r));
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
    std::string out = std::string(kOpSummaryHeader) + "\n";
    auto ids = task_ids();
    std::map<std::pair<int32_t, int32_t>, uint64_t> last_end;
    for (size_t i = 0; i < tasks_.size(); ++i) {
      const Record& r = tasks_[i];
      auto key = std::make_pair(r.device, r.stream);
      auto it = last_end.find(key);
      double wait = it == last_end.end() || r.t2 < it->second ? 0.0 : double(r.t2 - it->second) / 1000.0;
      last_end[key] = r.t3;
      const bool compute = is_compute(r);
      const std::string type = op_type(r);
      const Detail d = detail(r);
      const auto field = [&](plugin::OpDetailField f) { return d.f[static_cast<uint32_t>(f)]; };
      const std::string op_name = d.present && !field(plugin::OpDetailField::OpName).empty()
                                      ? std::string(field(plugin::OpDetailField::OpName))
                                      : type;
      // Model columns: the execution's tag (value2 of a kernel record) or msprof's "no model".
      const uint64_t tag = r.subkind == uint16_t(plugin::TaskType::Kernel) ? r.value2 : 0;
      const bool in_model = tag != 0;
      const std::string model_id = in_model ? std::to_string(tag >> 32) : std::string(kNoModelId);
      const std::string infer_id = in_model ? std::to_string(tag & 0xffffffffu) : std::string("N/A");
      // Tensor columns: quoted (shapes hold commas), N/A when the task is no operator.
      std::string tensors;
      for (auto f : {plugin::OpDetailField::InputShapes, plugin::OpDetailField::InputDataTypes,
                     plugin::OpDetailField::InputFormats, plugin::OpDetailField::OutputShapes,
                     plugin::OpDetailField::OutputDataTypes, plugin::OpDetailField::OutputFormats}) {
        const bool shapes = f == plugin::OpDetailField::InputShapes || f == plugin::OpDetailField::OutputShapes;
        tensors += "," + (d.present ? csv_field(field(f), shapes) : std::string("N/A"));
      }
      // aicore_time: the task's time on the AI cores (this model has no cycle counters).
      out += std::to_string(r.device) + "," + model_name(r) + "," + model_id + "," + std::to_string(ids[i]) + "," +
             std::to_string(r.stream) + "," + infer_id + "," + csv_field(op_name) + "," + csv_field(type) + ",N/A," +
             msprof_core_type(r) + "," + wall_us(r.t2) + "," + dur_us(r) + "," + fmt(wait) + "," +
             // Block Dim; Mix Block Dim N/A: no mixed cube/vector operator; HF32 Eligible: never used.
             (compute ? std::to_string(r.value1) : std::string("0")) + ",N/A," + (compute ? "NO" : "N/A") + tensors +
             ",N/A," + (compute ? dur_us(r) : std::string("N/A")) + ",N/A\n";
    }
    write("op_summary", out);
  }

  void write_op_statistic() const {
    struct Stat {
      uint64_t count = 0;
      double total = 0, min = 0, max = 0;
    };
    // (device, model name, OP Type, Core Type): msprof's network scene groups per model too.
    std::map<std::tuple<int32_t, std::string, std::string, std::string>, Stat> stats;
    std::map<int32_t, double> device_total;
    for (const auto& r : tasks_) {
      const double d = r.t3 > r.t2 ? double(r.t3 - r.t2) / 1000.0 : 0.0;
      Stat& s = stats[{r.device, model_name(r), op_type(r), msprof_core_type(r)}];
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
      out += std::to_string(std::get<0>(key)) + "," + std::get<1>(key) + "," + csv_field(std::get<2>(key)) + "," +
             std::get<3>(key) + "," + std::to_string(s.count) + "," + fmt(s.total) + "," + fmt(s.min) + "," +
             fmt(s.total / double(s.count)) + "," + fmt(s.max) + "," + fmt(all > 0 ? 100.0 * s.total / all : 0.0) +
             "\n";
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
      out += std::to_string(r.device) + "," + csv_field(op_type(r)) + "," + msprof_task_type(r) + "," +
             std::to_string(r.stream) + "," + std::to_string(ids[i]) + "," + dur_us(r) + "," + wall_us(r.t2) + "," +
             wall_us(r.t3) + "\n";
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

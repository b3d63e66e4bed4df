// summary: a readable report at the end of the session, written to summary-<pid>.txt in the output
// folder and, with the option print = true (the default), to stderr. It shows the tasks that took
// the most device time, copy bandwidth per direction, how busy each stream and execution unit
// was, the API calls that took the most host time, allocator peaks, and dropped records.
#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "arun/plugin/plugin_abi.hpp"
#include "arun/plugin/profiler.hpp"
#include "sink_support.hpp"

namespace arun::sinks {
namespace {

struct Totals {
  uint64_t count = 0;
  uint64_t ns = 0;
  uint64_t bytes = 0;
};

class SummarySink final : public plugin::ProfilerSink {
 public:
  explicit SummarySink(bool print) : print_(print) {}

  bool begin(const plugin::SessionInfo& info, char* error, size_t error_size) override {
    session_.assign(info);
    path_ = unique_path(session_.output_dir, "summary-" + std::to_string(info.pid), ".txt");
    return true;
  }

  void consume(const Record* records, size_t count) override {
    for (size_t i = 0; i < count; ++i) add(records[i]);
  }

  void end(const plugin::SessionTotals& totals) override {
    const double wall_ns = totals.end_ns > session_.base_ns ? double(totals.end_ns - session_.base_ns) : 1.0;
    std::string out;
    line(out, "ascend-run profile summary: %.3f ms, %llu records, %llu dropped", wall_ns / 1e6,
         (unsigned long long)totals.records, (unsigned long long)totals.dropped);
    if (totals.dropped != 0) line(out, "  (records were dropped: raise [profiler] buffer_size)");

    line(out, "\nTop tasks by total device time");
    line(out, "  %-24s %-18s %10s %14s %12s", "name", "task type", "count", "total (us)", "avg (us)");
    std::vector<std::pair<std::pair<std::string, std::string>, Totals>> top(by_task_.begin(), by_task_.end());
    std::sort(top.begin(), top.end(), [](auto& a, auto& b) { return a.second.ns > b.second.ns; });
    for (size_t i = 0; i < top.size() && i < 10; ++i) {
      const auto& [key, t] = top[i];
      line(out, "  %-24s %-18s %10llu %14.3f %12.3f", key.first.c_str(), key.second.c_str(),
           (unsigned long long)t.count, t.ns / 1e3, t.ns / 1e3 / double(t.count));
    }

    line(out, "\nCopy bandwidth per direction (bytes / device time of the copies)");
    line(out, "  %-6s %10s %16s %14s %12s", "dir", "copies", "bytes", "time (us)", "GB/s");
    for (const auto& [dir, t] : by_direction_) {
      line(out, "  %-6s %10llu %16llu %14.3f %12.3f", direction_name(dir), (unsigned long long)t.count,
           (unsigned long long)t.bytes, t.ns / 1e3, t.ns ? double(t.bytes) / double(t.ns) : 0.0);
    }

    line(out, "\nBusy time over the session (%.3f ms)", wall_ns / 1e6);
    for (const auto& [key, t] : by_stream_) {
      line(out, "  device %d stream %-6d %8llu tasks %8.2f%% busy", key.first, key.second,
           (unsigned long long)t.count, 100.0 * double(t.ns) / wall_ns);
    }
    for (const auto& [key, t] : by_unit_) {
      const bool copy = (key.second & plugin::kCopyUnitBit) != 0;
      line(out, "  device %d %-11s %-4u %8llu tasks %8.2f%% busy", key.first, copy ? "copy engine" : "AI core",
           key.second & ~plugin::kCopyUnitBit, (unsigned long long)t.count, 100.0 * double(t.ns) / wall_ns);
    }

    line(out, "\nTop API calls by total host time");
    line(out, "  %-32s %10s %14s %12s", "API", "calls", "total (us)", "avg (us)");
    std::vector<std::pair<std::string, Totals>> apis(by_api_.begin(), by_api_.end());
    std::sort(apis.begin(), apis.end(), [](auto& a, auto& b) { return a.second.ns > b.second.ns; });
    for (size_t i = 0; i < apis.size() && i < 10; ++i) {
      line(out, "  %-32s %10llu %14.3f %12.3f", apis[i].first.c_str(), (unsigned long long)apis[i].second.count,
           apis[i].second.ns / 1e3, apis[i].second.ns / 1e3 / double(apis[i].second.count));
    }

    line(out, "\nDevice memory (allocator totals at each aclrtMalloc / aclrtFree)");
    if (memory_.empty()) line(out, "  no allocations recorded");
    for (const auto& [device, m] : memory_) {
      line(out, "  device %d: %llu allocations, %llu frees, peak allocated %llu B, peak reserved %llu B", device,
           (unsigned long long)m.allocs, (unsigned long long)m.frees, (unsigned long long)m.peak_allocated,
           (unsigned long long)m.peak_reserved);
    }
    write_file_atomically(path_, out);
    if (print_) std::fputs(out.c_str(), stderr);
  }

 private:
  struct Memory {
    uint64_t allocs = 0, frees = 0, peak_allocated = 0, peak_reserved = 0;
  };

  static void line(std::string& out, const char* format, ...) __attribute__((format(printf, 2, 3))) {
    char buf[512];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    out += buf;
    out += '\n';
  }

  void add(const Record& r) {
    switch (r.kind) {
      case RecordKind::Task: {
        const uint64_t ns = r.t3 > r.t2 ? r.t3 - r.t2 : 0;
        // msprof's task type; synchronous work (no device task) keeps our own name for its kind.
        const char* type = msprof_task_type(r);
        Totals& t = by_task_[{session_.name(r.name),
                              type != nullptr ? type : std::string(task_type_name(r.subkind)) + " (sync)"}];
        ++t.count;
        t.ns += ns;
        if (r.subkind == uint16_t(plugin::TaskType::Copy) || r.subkind == uint16_t(plugin::TaskType::Copy2D)) {
          Totals& d = by_direction_[r.value2];
          ++d.count;
          d.ns += ns;
          d.bytes += r.value0;
        }
        if (is_sync_work(r)) break;  // ran on a host thread: no stream or unit to charge
        Totals& s = by_stream_[{r.device, r.stream}];
        ++s.count;
        s.ns += ns;
        if (is_host_call(r)) break;  // ran on a host thread: no execution unit
        Totals& u = by_unit_[{r.device, r.unit}];
        ++u.count;
        u.ns += ns;
        break;
      }
      case RecordKind::ApiCall: {
        Totals& t = by_api_[session_.name(r.name)];
        ++t.count;
        t.ns += r.t1 > r.t0 ? r.t1 - r.t0 : 0;
        break;
      }
      case RecordKind::MemAlloc:
      case RecordKind::MemFree: {
        Memory& m = memory_[r.device];
        (r.kind == RecordKind::MemAlloc ? m.allocs : m.frees)++;
        m.peak_allocated = std::max(m.peak_allocated, r.value2);
        m.peak_reserved = std::max(m.peak_reserved, r.value3);
        break;
      }
      default: break;
    }
  }

  bool print_;
  Session session_;
  std::string path_;
  std::map<std::pair<std::string, std::string>, Totals> by_task_;  // (name, task type)
  std::map<uint64_t, Totals> by_direction_;
  std::map<std::pair<int32_t, int32_t>, Totals> by_stream_;
  std::map<std::pair<int32_t, uint32_t>, Totals> by_unit_;
  std::map<std::string, Totals> by_api_;
  std::map<int32_t, Memory> memory_;
};

const plugin::OptionSpec kOptions[] = {
    {"print", plugin::OptionType::Boolean, 0, 1, "true", "also print the report to stderr"},
};

plugin::PluginObject* create(plugin::HostServices*, const plugin::OptionValues* options, char*, size_t) {
  return new SummarySink(options == nullptr || options->get_bool("print", true));
}

}  // namespace

extern const plugin::PluginDescriptor kSummaryDescriptor;
const plugin::PluginDescriptor kSummaryDescriptor{
    ARUN_PLUGIN_HEADER,
    plugin::PluginKind::Profiler,
    "summary",
    "1.0.0",
    "",
    "A readable report at the end of the session: top tasks, copy bandwidth, busy time, top APIs, memory peaks",
    kOptions,
    1,
    &create,
};

}  // namespace arun::sinks

ARUN_DECLARE_PLUGIN(arun::sinks::kSummaryDescriptor)

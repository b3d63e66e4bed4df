// timeline: a Chrome Trace Event JSON file (timeline-<pid>.json) for Perfetto UI and chrome://tracing.
//
// Tracks: the host process has one track per host thread (API spans, user marks and ranges, step
// tags); each device is a process with one track per stream (the tasks in stream order, event
// records and satisfied waits; a graph replay is one "graph" slice there, its nodes are tasks of the
// instance's hidden streams) and one per execution unit (what each AI core and copy engine ran).
// Flow arrows join each API call to the task it launched and each event record to the waits it
// released. Counter tracks: queue depth per stream, busy units per kind, device memory.
// Timestamps are microseconds since the session began (otherData.base_unix_ns gives that instant).
// The file is written at the end of the session, to a temporary name and then renamed.
#include <algorithm>
#include <deque>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "arun/plugin/plugin_abi.hpp"
#include "arun/plugin/profiler.hpp"
#include "sink_support.hpp"

namespace arun::sinks {
namespace {

constexpr uint32_t kStreamTid = 1000;     // + stream id
constexpr uint32_t kComputeTid = 100000;  // + AI core index
constexpr uint32_t kCopyTid = 200000;     // + copy engine index
constexpr uint32_t kSyncTid = 1000000;    // + host thread: its synchronous copies and memsets

struct TimelineOptions {
  bool unix_time = false;  // timestamps since the Unix epoch, to line up with other processes' traces
  bool slice_args = true;  // per-call details in each slice's args (see kOptions)
};

class TimelineSink final : public plugin::ProfilerSink {
 public:
  explicit TimelineSink(TimelineOptions options) : options_(options) {}

  bool begin(const plugin::SessionInfo& info, char* error, size_t error_size) override {
    session_.assign(info);
    path_ = unique_path(session_.output_dir, "timeline-" + std::to_string(info.pid), ".json");
    // Fail now rather than after a long run: the folder must take a file.
    if (!write_file_atomically(path_, "{\"traceEvents\":[]}\n")) {
      std::snprintf(error, error_size, "cannot write %s", path_.c_str());
      return false;
    }
    return true;
  }

  // The host is the process's real pid, and each device a process of its own numbered from it, so the
  // traces of several processes load side by side without colliding (pid_max is at most 2^22).
  uint32_t host_pid() const { return session_.pid; }
  uint32_t device_pid(int32_t device) const { return session_.pid * 100 + 10 + static_cast<uint32_t>(device); }

  void consume(const plugin::Record* records, size_t count) override {
    records_.insert(records_.end(), records, records + count);
  }

  void end(const plugin::SessionTotals& totals) override {
    std::string out;
    out.reserve(records_.size() * 200 + 4096);
    out += "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"ascend-run\",\"base_unix_ns\":";
    out += std::to_string(session_.base_unix_ns);
    out += ",\"records\":" + std::to_string(totals.records) + ",\"dropped\":" + std::to_string(totals.dropped);
    out += "},\"traceEvents\":[\n";
    first_ = true;
    write_metadata(out);
    write_events(out);
    write_counters(out);
    out += "\n]}\n";
    write_file_atomically(path_, out);
  }

 private:
  void sep(std::string& out) {
    if (!first_) out += ",\n";
    first_ = false;
  }

  void meta(std::string& out, const char* what, uint32_t pid, int64_t tid, const std::string& name, int sort) {
    sep(out);
    out += "{\"ph\":\"M\",\"name\":\"";
    out += what;
    out += "\",\"pid\":" + std::to_string(pid);
    if (tid >= 0) out += ",\"tid\":" + std::to_string(tid);
    out += ",\"args\":{\"name\":";
    append_json_string(out, name);
    out += "}}";
    sep(out);
    out += "{\"ph\":\"M\",\"name\":\"";
    out += tid >= 0 ? "thread_sort_index" : "process_sort_index";
    out += "\",\"pid\":" + std::to_string(pid);
    if (tid >= 0) out += ",\"tid\":" + std::to_string(tid);
    out += ",\"args\":{\"sort_index\":" + std::to_string(sort) + "}}";
  }

  void write_metadata(std::string& out) {
    meta(out, "process_name", host_pid(), -1, "Host (pid " + std::to_string(session_.pid) + ")", 0);
    std::map<uint32_t, bool> threads;
    std::map<std::pair<int32_t, int32_t>, bool> streams;
    std::map<std::pair<int32_t, uint32_t>, bool> units;
    std::map<std::pair<int32_t, uint32_t>, bool> sync_tracks;  // (device, host thread)
    for (const auto& r : records_) {
      if (r.kind == RecordKind::Task && is_sync_work(r)) {
        sync_tracks[{r.device, r.thread}] = true;
        if (r.correlation != 0) threads[r.thread] = true;
      } else if (r.kind == RecordKind::Task || r.kind == RecordKind::EventRecord || r.kind == RecordKind::EventWait) {
        streams[{r.device, r.stream}] = true;
        if (r.kind == RecordKind::Task && !is_host_call(r)) units[{r.device, r.unit}] = true;
        if (r.kind == RecordKind::Task && is_host_call(r)) threads[static_cast<uint32_t>(r.value0)] = true;
        if (r.kind == RecordKind::Task && r.correlation != 0) threads[r.thread] = true;
      } else if (r.kind == RecordKind::Blocks) {
        units[{r.device, r.unit}] = true;
      } else if (r.kind == RecordKind::GraphLaunch) {
        streams[{r.device, r.stream}] = true;
        if (r.correlation != 0) threads[r.thread] = true;
      } else if (r.kind != RecordKind::MemAlloc && r.kind != RecordKind::MemFree && r.kind != RecordKind::Dropped) {
        threads[r.thread] = true;
      }
    }
    for (auto& [tid, _] : threads) meta(out, "thread_name", host_pid(), tid, "thread " + std::to_string(tid), int(tid));
    for (size_t i = 0; i < session_.devices.size(); ++i) {
      const auto& d = session_.devices[i];
      meta(out, "process_name", device_pid(d.id), -1,
           "NPU " + std::to_string(d.id) + " (" + session_.device_names[i] + ")", 10 + d.id);
    }
    for (auto& [key, _] : streams) {
      meta(out, "thread_name", device_pid(key.first), kStreamTid + key.second, "stream " + std::to_string(key.second),
           key.second);
    }
    for (auto& [key, _] : sync_tracks) {
      meta(out, "thread_name", device_pid(key.first), kSyncTid + key.second,
           "synchronous copies (thread " + std::to_string(key.second) + ")", int(kSyncTid));
    }
    for (auto& [key, _] : units) {
      const bool copy = (key.second & plugin::kCopyUnitBit) != 0;
      const uint32_t idx = key.second & ~plugin::kCopyUnitBit;
      meta(out, "thread_name", device_pid(key.first), unit_tid(key.second),
           (copy ? "copy engine " : "AI core ") + std::to_string(idx), int((copy ? 200000 : 100000) + idx));
    }
  }

  static uint32_t unit_tid(uint32_t unit) {
    return (unit & plugin::kCopyUnitBit) ? kCopyTid + (unit & ~plugin::kCopyUnitBit) : kComputeTid + unit;
  }

  // A timestamp: microseconds since the session start, or (unix_time) since the epoch, computed in
  // integer nanoseconds so the epoch offset costs no precision before printing.
  void append_ts(std::string& out, uint64_t t) const {
    if (!options_.unix_time) return append_us(out, session_.us(t));
    const int64_t ns = session_.base_unix_ns + (static_cast<int64_t>(t) - static_cast<int64_t>(session_.base_ns));
    char buf[48];
    std::snprintf(buf, sizeof buf, "%lld.%03lld", static_cast<long long>(ns / 1000), static_cast<long long>(ns % 1000));
    out += buf;
  }

  void slice(std::string& out, const std::string& name, const char* cat, uint32_t pid, uint32_t tid, uint64_t t0,
             uint64_t t1, const std::string& args) {
    sep(out);
    out += "{\"ph\":\"X\",\"name\":";
    append_json_string(out, name);
    out += ",\"cat\":\"";
    out += cat;
    out += "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) + ",\"ts\":";
    append_ts(out, t0);
    out += ",\"dur\":";
    append_us(out, t1 > t0 ? session_.us(t1) - session_.us(t0) : 0.0);
    if (!args.empty()) out += ",\"args\":{" + args + "}";
    out += "}";
  }

  void flow(std::string& out, char ph, const char* cat, uint64_t id, uint32_t pid, uint32_t tid, uint64_t t) {
    sep(out);
    out += "{\"ph\":\"";
    out += ph;
    out += "\",\"name\":\"";
    out += cat;
    out += "\",\"cat\":\"";
    out += cat;
    out += "\",\"id\":" + std::to_string(id) + ",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
           ",\"ts\":";
    append_ts(out, t);
    if (ph == 'f') out += ",\"bp\":\"e\"";
    out += "}";
  }

  void write_events(std::string& out) {
    // Records that a flow starts from, by correlation / record id.
    std::unordered_map<uint64_t, const Record*> api_by_correlation;
    std::unordered_map<uint64_t, const Record*> event_records;
    for (const auto& r : records_) {
      if (r.kind == RecordKind::ApiCall) api_by_correlation[r.correlation] = &r;
      if (r.kind == RecordKind::EventRecord && r.value0 != 0) event_records[r.value0] = &r;
    }
    uint64_t flow_id = 0;
    for (const auto& r : records_) {
      switch (r.kind) {
        case RecordKind::ApiCall:
          slice(out, session_.name(r.name), "api", host_pid(), r.thread, r.t0, r.t1,
                options_.slice_args ? "\"correlation\":" + std::to_string(r.correlation) : std::string());
          break;
        case RecordKind::Task: {
          const uint32_t pid = device_pid(r.device);
          // What is the same for every call of a kernel or copy kind first; then the per-call details.
          std::string args =
              "\"type\":\"" + std::string(task_type_name(r.subkind)) + "\",\"stream\":" + std::to_string(r.stream);
          if (const char* task_type = msprof_task_type(r)) {  // msprof's vocabulary, as msprof_csv and summary
            args += ",\"task_type\":\"";
            args += task_type;
            args += "\"";
          }
          const bool data_task = r.subkind != uint16_t(plugin::TaskType::Kernel) &&
                                 r.subkind != uint16_t(plugin::TaskType::DeviceTask) && !is_host_call(r);
          if (data_task && r.subkind != uint16_t(plugin::TaskType::Memset)) {
            args += ",\"direction\":\"";
            args += direction_name(r.value2);
            args += "\"";
          }
          if (options_.slice_args) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3f", r.t2 > r.t0 ? double(r.t2 - r.t0) / 1000.0 : 0.0);
            args += ",\"correlation\":" + std::to_string(r.correlation) + ",\"queued_us\":" + buf +
                    ",\"status\":" + std::to_string(static_cast<int32_t>(r.value3 >> 32));
            if (!data_task && !is_host_call(r)) {
              args += ",\"block_dim\":" + std::to_string(r.value1);
            } else if (is_host_call(r)) {
              args += ",\"host_thread\":" + std::to_string(r.value0);
            } else {
              args += ",\"bytes\":" + std::to_string(r.value0);
            }
          }
          const std::string name = session_.name(r.name);
          const bool sync = is_sync_work(r);
          const uint32_t track = sync ? kSyncTid + r.thread : kStreamTid + r.stream;
          slice(out, name, sync ? "sync" : "task", pid, track, r.t2, r.t3, args);
          if (is_host_call(r)) {
            // The host thread that ran it (inside its aclrtProcessReport span, if it is a user thread).
            slice(out, name, "host_call", host_pid(), static_cast<uint32_t>(r.value0), r.t2, r.t3, args);
          } else if (!sync) {
            slice(out, name, "unit", pid, unit_tid(r.unit), r.t2, r.t3, args);
          }
          if (r.correlation != 0 && api_by_correlation.count(r.correlation) != 0) {
            ++flow_id;
            flow(out, 's', "launch", flow_id, host_pid(), r.thread, r.t0);
            flow(out, 'f', "launch", flow_id, pid, track, r.t2);
          }
          break;
        }
        case RecordKind::Blocks:  // a core that ran blocks of another core's kernel
          slice(out, session_.name(r.name), "unit", device_pid(r.device), unit_tid(r.unit), r.t2, r.t3,
                "\"type\":\"blocks\",\"stream\":" + std::to_string(r.stream) +
                    ",\"block_dim\":" + std::to_string(r.value1));
          break;
        case RecordKind::GraphLaunch: {  // a replay: one slice on its stream; its nodes are Task records
          const uint32_t pid = device_pid(r.device);
          std::string args = "\"type\":\"graph\",\"stream\":" + std::to_string(r.stream) +
                             ",\"model_ri\":" + std::to_string(r.value1) + ",\"nodes\":" + std::to_string(r.value0) +
                             ",\"lanes\":" + std::to_string(r.value2);
          if (options_.slice_args) {
            char buf[64];
            std::snprintf(buf, sizeof buf, "%.3f", r.t1 > r.t0 ? double(r.t1 - r.t0) / 1000.0 : 0.0);
            args += ",\"correlation\":" + std::to_string(r.correlation) + ",\"queued_us\":" + buf;
          }
          slice(out, session_.name(r.name), "graph", pid, kStreamTid + r.stream, r.t2, r.t3, args);
          if (r.correlation != 0 && api_by_correlation.count(r.correlation) != 0) {
            ++flow_id;
            flow(out, 's', "launch", flow_id, host_pid(), r.thread, r.t0);
            flow(out, 'f', "launch", flow_id, pid, kStreamTid + r.stream, r.t2);
          }
          break;
        }
        case RecordKind::EventRecord:
          slice(out, "event record", "event", device_pid(r.device), kStreamTid + r.stream, r.t1, r.t1,
                options_.slice_args ? "\"record\":" + std::to_string(r.value0) : std::string());
          break;
        case RecordKind::EventWait: {
          const uint32_t pid = device_pid(r.device);
          char buf[64];
          std::snprintf(buf, sizeof buf, "%.3f", r.t1 > r.t0 ? double(r.t1 - r.t0) / 1000.0 : 0.0);
          slice(out, "event wait", "event", pid, kStreamTid + r.stream, r.t1, r.t1,
                options_.slice_args ? "\"record\":" + std::to_string(r.value0) + ",\"pending_us\":" + buf
                                    : std::string());
          auto it = event_records.find(r.value0);
          if (r.value0 != 0 && it != event_records.end()) {
            ++flow_id;
            const Record& rec = *it->second;
            flow(out, 's', "event", flow_id, device_pid(rec.device), kStreamTid + rec.stream, rec.t1);
            flow(out, 'f', "event", flow_id, pid, kStreamTid + r.stream, r.t1);
          }
          break;
        }
        case RecordKind::Mark:
          sep(out);
          out += "{\"ph\":\"i\",\"s\":\"t\",\"name\":";
          append_json_string(out, session_.name(r.name));
          out += ",\"cat\":\"mark\",\"pid\":" + std::to_string(host_pid()) + ",\"tid\":" + std::to_string(r.thread) +
                 ",\"ts\":";
          append_ts(out, r.t0);
          out += "}";
          break;
        case RecordKind::Range:
          if (r.subkind == 0) {
            slice(out, session_.name(r.name), "range", host_pid(), r.thread, r.t0, r.t1, "");
          } else {
            for (char ph : {'b', 'e'}) {
              sep(out);
              out += "{\"ph\":\"";
              out += ph;
              out += "\",\"name\":";
              append_json_string(out, session_.name(r.name));
              out += ",\"cat\":\"range\",\"id\":" + std::to_string(r.value0) +
                     ",\"pid\":" + std::to_string(host_pid()) + ",\"tid\":" + std::to_string(r.thread) + ",\"ts\":";
              append_ts(out, ph == 'b' ? r.t0 : r.t1);
              out += "}";
            }
          }
          break;
        case RecordKind::Step:
          sep(out);
          out += "{\"ph\":\"i\",\"s\":\"t\",\"name\":\"step " + std::to_string(r.value0) +
                 (r.subkind == 0 ? " start" : " end") + "\",\"cat\":\"step\",\"pid\":" + std::to_string(host_pid()) +
                 ",\"tid\":" + std::to_string(r.thread) + ",\"ts\":";
          append_ts(out, r.t0);
          out += ",\"args\":{\"stream\":" + std::to_string(r.stream) + "}}";
          break;
        default:
          break;
      }
    }
  }

  void counter(std::string& out, uint32_t pid, const std::string& name, uint64_t t, const std::string& args) {
    sep(out);
    out += "{\"ph\":\"C\",\"name\":";
    append_json_string(out, name);
    out += ",\"pid\":" + std::to_string(pid) + ",\"ts\":";
    append_ts(out, t);
    out += ",\"args\":{" + args + "}}";
  }

  // Counter tracks, swept from the records: +1/-1 steps sorted by time.
  void write_counters(std::string& out) {
    struct Step {
      uint64_t t;
      int delta;
    };
    std::map<std::pair<int32_t, int32_t>, std::vector<Step>> depth;  // (device, stream)
    std::map<std::pair<int32_t, bool>, std::vector<Step>> busy;      // (device, copy?)
    for (const auto& r : records_) {
      if (r.kind == RecordKind::Blocks) {
        busy[{r.device, false}].push_back({r.t2, +1});
        busy[{r.device, false}].push_back({r.t3, -1});
        continue;
      }
      if (r.kind != RecordKind::Task || is_sync_work(r)) continue;
      depth[{r.device, r.stream}].push_back({r.t0, +1});
      depth[{r.device, r.stream}].push_back({r.t3, -1});
      if (is_host_call(r)) continue;  // no execution unit
      busy[{r.device, is_copy_unit(r)}].push_back({r.t2, +1});
      busy[{r.device, is_copy_unit(r)}].push_back({r.t3, -1});
    }
    auto sweep = [&](std::vector<Step>& steps, uint32_t pid, const std::string& name, const char* key) {
      std::stable_sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
        return a.t != b.t ? a.t < b.t : a.delta < b.delta;  // ends before starts at one instant
      });
      int64_t value = 0;
      for (size_t i = 0; i < steps.size(); ++i) {
        value += steps[i].delta;
        if (i + 1 < steps.size() && steps[i + 1].t == steps[i].t) continue;  // one sample per instant
        counter(out, pid, name, steps[i].t, std::string("\"") + key + "\":" + std::to_string(value));
      }
    };
    for (auto& [key, steps] : depth)
      sweep(steps, device_pid(key.first), "queue depth stream " + std::to_string(key.second), "tasks");
    for (auto& [key, steps] : busy)
      sweep(steps, device_pid(key.first), key.second ? "busy copy engines" : "busy AI cores", "units");
    for (const auto& r : records_) {
      if (r.kind != RecordKind::MemAlloc && r.kind != RecordKind::MemFree) continue;
      counter(out, device_pid(r.device), "device memory", r.t0,
              "\"allocated\":" + std::to_string(r.value2) + ",\"reserved\":" + std::to_string(r.value3));
    }
  }

  Session session_;
  std::string path_;
  // A deque: the collector appends batches while the program runs, and growing a vector would copy
  // everything gathered so far, holding up the next drain of the rings (records were dropped so).
  std::deque<Record> records_;
  bool first_ = true;
  TimelineOptions options_;
};

const plugin::OptionSpec kOptions[] = {
    {"unix_time", plugin::OptionType::Boolean, 0, 1, "false",
     "timestamps in microseconds since the Unix epoch instead of since the session start, so that traces of "
     "several processes (or from other tools) line up"},
    {"slice_args", plugin::OptionType::Boolean, 0, 1, "true",
     "per-call details in each slice's args (correlation id, queue time, bytes, status); false keeps only what "
     "is the same for every call of a name, so viewers that key frames by name and args (speedscope) merge "
     "repeated calls; flow arrows still join launches to tasks"},
};

plugin::PluginObject* create(plugin::HostServices*, const plugin::OptionValues* options, char*, size_t) {
  TimelineOptions o;
  if (options != nullptr) {
    o.unix_time = options->get_bool("unix_time", false);
    o.slice_args = options->get_bool("slice_args", true);
  }
  return new TimelineSink(o);
}

}  // namespace

extern const plugin::PluginDescriptor kTimelineDescriptor;
const plugin::PluginDescriptor kTimelineDescriptor{
    ARUN_PLUGIN_HEADER,
    plugin::PluginKind::Profiler,
    "timeline",
    "1.0.0",
    "",
    "Chrome Trace Event JSON for Perfetto UI and chrome://tracing (tracks per thread, stream and unit; flows; "
    "counters)",
    kOptions,
    2,
    &create,
};

}  // namespace arun::sinks

ARUN_DECLARE_PLUGIN(arun::sinks::kTimelineDescriptor)

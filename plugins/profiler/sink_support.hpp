// What the bundled profiler sinks share: record storage, names of tracks and directions, time
// formatting, and writing a file atomically (to a temporary name, then renamed, so a reader never
// sees half a file).
#pragma once

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "arun/plugin/profiler.hpp"

namespace arun::sinks {

using plugin::Record;
using plugin::RecordKind;

// The session as begin() described it, kept for end().
struct Session {
  std::string output_dir;
  uint64_t base_ns = 0;
  int64_t base_unix_ns = 0;
  uint32_t pid = 0;
  const plugin::StringTable* strings = nullptr;
  std::vector<plugin::DeviceInfo> devices;
  std::vector<std::string> device_names;

  void assign(const plugin::SessionInfo& s) {
    output_dir = s.output_dir;
    base_ns = s.base_ns;
    base_unix_ns = s.base_unix_ns;
    pid = s.pid;
    strings = s.strings;
    devices.assign(s.devices, s.devices + s.device_count);
    device_names.clear();
    for (auto& d : devices) device_names.emplace_back(d.name ? d.name : "");
  }
  std::string name(uint32_t id) const { return strings ? std::string(strings->get(id)) : std::string(); }
  // Microseconds since the session began, never negative.
  double us(uint64_t t) const { return t > base_ns ? double(t - base_ns) / 1000.0 : 0.0; }
};

inline const char* direction_name(uint64_t d) {
  switch (static_cast<plugin::CopyDirection>(d)) {
    case plugin::CopyDirection::HostToHost: return "H2H";
    case plugin::CopyDirection::HostToDevice: return "H2D";
    case plugin::CopyDirection::DeviceToHost: return "D2H";
    case plugin::CopyDirection::DeviceToDevice: return "D2D";
  }
  return "?";
}

inline const char* task_type_name(uint16_t t) {
  switch (static_cast<plugin::TaskType>(t)) {
    case plugin::TaskType::Kernel: return "KERNEL";
    case plugin::TaskType::Copy: return "MEMCPY";
    case plugin::TaskType::Copy2D: return "MEMCPY2D";
    case plugin::TaskType::Memset: return "MEMSET";
    case plugin::TaskType::DeviceTask: return "DEVICE_TASK";
    case plugin::TaskType::HostCall: return "HOST_CALL";
  }
  return "TASK";
}

inline bool is_copy_unit(const Record& r) { return (r.unit & plugin::kCopyUnitBit) != 0; }
// A synchronous copy or memset: it ran on the calling host thread, not on a stream.
inline bool is_sync_work(const Record& r) { return r.unit == plugin::kHostUnit && r.stream < 0; }
// A host call (aclrtLaunchCallback, aclrtLaunchHostFunc): on a stream, run by host thread value0.
inline bool is_host_call(const Record& r) { return r.subkind == uint16_t(plugin::TaskType::HostCall); }
// Work on the AI cores: kernels and device tasks.
inline bool is_compute(const Record& r) { return !is_copy_unit(r) && !is_sync_work(r) && !is_host_call(r); }

// msprof's vocabulary (CANN's runtime task-type names, as msprof's task_time and op_summary print
// them), one place for every bundled sink:
//   KERNEL_AICORE      a kernel or device task on the AI cores (op_summary's Task Type: AI_CORE);
//   MEMCPY_ASYNC       a copy, 2-D copy or memset on a copy engine (the runtime has no memset task
//                      type: an SDMA memset is a MEMCPY_ASYNC task too);
//   HOSTFUNC_CALLBACK  aclrtLaunchCallback / aclrtLaunchHostFunc.
// A synchronous aclrtMemcpy / aclrtMemset runs on the calling thread, not as a device task: msprof
// has no task type for it (nullptr), and msprof_csv leaves it out of its device views.
inline const char* msprof_task_type(const Record& r) {
  if (is_sync_work(r)) return nullptr;
  if (is_host_call(r)) return "HOSTFUNC_CALLBACK";
  if (is_copy_unit(r)) return "MEMCPY_ASYNC";
  return "KERNEL_AICORE";
}
// op_summary's Task Type / op_statistic's Core Type: the accelerator for AI core work, else the
// runtime task type (msprof prints non-operator tasks so).
inline const char* msprof_core_type(const Record& r) { return is_compute(r) ? "AI_CORE" : msprof_task_type(r); }
inline uint32_t unit_index(const Record& r) { return r.unit & ~plugin::kCopyUnitBit; }

// `base` in `dir`, with -2, -3, ... before the extension when a file of that name exists already
// (two sessions of one process, or two processes with the same pid in a reused folder).
inline std::string unique_path(const std::string& dir, const std::string& stem, const std::string& ext) {
  namespace fs = std::filesystem;
  std::string path = (fs::path(dir) / (stem + ext)).string();
  std::error_code ec;
  for (int n = 2; fs::exists(path, ec); ++n) path = (fs::path(dir) / (stem + "-" + std::to_string(n) + ext)).string();
  return path;
}

inline bool write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!out) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

// JSON string literal (quotes included).
inline void append_json_string(std::string& out, std::string_view s) {
  out += '"';
  for (char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char buf[8];
          std::snprintf(buf, sizeof buf, "\\u%04x", c);
          out += buf;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

inline void append_us(std::string& out, double us) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", us);
  out += buf;
}

}  // namespace arun::sinks

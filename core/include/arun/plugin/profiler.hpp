// Profiler sinks (plugin kind Profiler): consumers of the runtime's profiling records.
//
// The core collects fixed-size Records cheaply on the threads where things happen (per-thread
// buffers, no lock, no allocation) and one collector thread delivers them in batches to every
// active sink; a sink never runs on an enqueue or completion path. A session is what lies between
// the start and the stop of profiling (aclprofStart/aclprofStop, or aclInit/aclFinalize when the
// [profiler] section or ASCEND_RUN_PROFILING turns it on); the factory makes one sink object per
// session, and the core calls, on the collector thread only and in this order:
//   begin(session)   once, before any record: where to write, the time base, the devices;
//   consume(batch)   any number of times, records in each thread's order (not globally sorted);
//   end(totals)      once, after the last batch: write the output now (the program may be exiting).
// No exception may leave these calls; begin() reports failure through its error buffer, and the
// session then goes on without that sink.
//
// Selecting sinks: [profiler] sinks = ["timeline", ...] or ASCEND_RUN_PROFILING=timeline,summary
// loads libarun_profiler_<name>.so from the plugin folders; a sink's own options go in a
// [[plugin]] entry with kind = "profiler" and the same name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "arun/plugin/plugin_descriptor.hpp"

namespace arun::plugin {

enum class RecordKind : uint16_t {
  ApiCall = 1,      // host API span: name, thread, t0..t1 (host), correlation
  Task = 2,         // device task: t0 enqueue, t1 ready, t2 start, t3 end; unit; correlation of the launch
  EventRecord = 3,  // an event record retired on its stream at t0; value0 = record id
  EventWait = 4,    // a wait enqueued at t0, satisfied at t1; value0 = the record id it waited for
  EventSync = 5,    // host aclrtSynchronizeEvent span t0..t1 on `thread`; value0 = record id (0: none)
  MemAlloc = 6,     // value0 = address, value1 = bytes; totals in value2 (allocated) / value3 (reserved)
  MemFree = 7,      // as MemAlloc (value1 = bytes freed)
  Mark = 8,         // user instant at t0 (aclprofMark); name = the stamp's message
  Range = 9,        // user range t0..t1; subkind 0: push/pop (nests on its thread), 1: start/stop (any thread)
  Counter = 10,     // name = counter, value0 = value, at t0
  Step = 11,        // training step tag (subkind 0 start, 1 end) at t0 on `stream`; value0 = step object id
  Dropped = 12,     // value0 = records a thread could not write because its buffer was full
  // (ABI minor 9) An AI core that ran blocks of a kernel another unit was given (the Task record's
  // unit): device, stream, unit, name and correlation as that Task record, t2..t3 = the kernel's
  // span. One record per helping unit, emitted right after the Task record; sinks that count tasks
  // ignore it, timelines draw it on the unit's track.
  Blocks = 13,
  // One execution of a model runtime instance (aclmdlRIExecuteAsync, aclmdlRIExecute), on the stream
  // it was launched on: name = the instance's name (aclmdlRISetName), else "modelRI <id>"; thread and
  // correlation = the launching call's (the Task records of its nodes, on the instance's hidden
  // streams and the units that ran them, carry the same correlation); t0 enqueued, t1 started (it
  // reached the head of its stream), t2..t3 = from its start to the end of its last node (device
  // time, converted); value0 = node tasks, value1 = the instance's id (aclmdlRIGetId), value2 =
  // hidden streams used. Added without an ABI minor: a sink that does not know it ignores it, and
  // sinks that count tasks must ignore it (its nodes are Task records of their own).
  GraphLaunch = 14,
};

// What a Task record ran (subkind of RecordKind::Task).
// HostCall: an aclrtLaunchCallback / aclrtLaunchHostFunc call, run by a host thread when it reached
// the head of its stream: unit = kHostUnit, stream = its stream, value0 = the host thread that ran it,
// t1 = when it was handed to that thread, t2..t3 = the call itself.
enum class TaskType : uint16_t { Kernel = 0, Copy = 1, Copy2D = 2, Memset = 3, DeviceTask = 4, HostCall = 5 };

// Copy direction (Task records with TaskType Copy/Copy2D: value2).
enum class CopyDirection : uint32_t { HostToHost = 0, HostToDevice = 1, DeviceToHost = 2, DeviceToDevice = 3 };

// One profiling record: 96 bytes, no pointers, so it is copied by value into per-thread buffers.
// Times are nanoseconds on one clock for the whole process (steady clock); device times are
// converted to it by the core, so sinks never see a device clock.
struct Record {
  RecordKind kind;
  uint16_t subkind;      // TaskType for Task, range type for Range, tag for Step
  uint32_t name;         // interned string id (StringTable::get), 0 = none
  uint32_t thread;       // host thread (Linux tid) that did it or submitted it
  int32_t device;        // -1: none
  int32_t stream;        // stream id on its device, -1: none
  uint32_t unit;         // execution unit (Task): kCopyUnitBit set = copy engine; kHostUnit = the calling thread
  uint64_t correlation;  // links an ApiCall to the Task(s) it created (0: none)
  uint64_t t0, t1, t2, t3;
  uint64_t value0, value1, value2, value3;
};
static_assert(sizeof(Record) == 96, "Record is part of the plugin ABI");

inline constexpr uint32_t kCopyUnitBit = 0x80000000u;

// Operator details of a kernel Task record (TaskType::Kernel), for msprof's op_summary columns;
// zero when the launch had none (a user kernel) or was made before the session collected tasks:
//   value0 = interned id of the op's detail text: kOpDetailFields fields joined by kOpDetailSeparator,
//            in the order of OpDetailField, each in msprof's value syntax (shapes "1,3,224,224" with
//            ';' between tensors, dtypes "FLOAT;INT32", formats "ND;NCHW"); split_op_detail() splits it;
//   value2 = the model execution the task belongs to: (model id << 32) | inference index (from 1),
//            as aclmdlExecute / aclmdlExecuteAsync ran it; 0 outside a model.
// The detail text is interned once per distinct (node or op, shapes, dtypes, formats), not per launch.
enum class OpDetailField : uint32_t {
  OpName = 0,       // the model node's name; the op type for a single operator
  ModelName = 1,    // empty outside a model
  InputShapes = 2,  // present inputs only (an omitted optional input is left out)
  InputDataTypes = 3,
  InputFormats = 4,
  OutputShapes = 5,
  OutputDataTypes = 6,
  OutputFormats = 7,
};
inline constexpr uint32_t kOpDetailFields = 8;
inline constexpr char kOpDetailSeparator = '\x1f';  // ASCII unit separator: in no name or value

// Splits a detail text into its fields (missing trailing fields stay empty); false if it has more.
inline bool split_op_detail(std::string_view text, std::string_view (&fields)[kOpDetailFields]) {
  for (auto& f : fields) f = {};
  uint32_t i = 0;
  size_t start = 0;
  for (size_t pos = 0; pos <= text.size(); ++pos) {
    if (pos < text.size() && text[pos] != kOpDetailSeparator) continue;
    if (i == kOpDetailFields) return false;
    fields[i++] = text.substr(start, pos - start);
    start = pos + 1;
  }
  return true;
}
// The unit of work that ran on a host thread: a synchronous copy or memset (aclrtMemcpy,
// aclrtMemset; stream = -1, it ran on the calling thread), or a host call (TaskType::HostCall).
inline constexpr uint32_t kHostUnit = 0xffffffffu;

// Interned strings: API names, kernel names, stamp messages, counter names. Ids are process-wide
// and never reused; get() returns an empty view for an unknown id. Thread-safe.
class StringTable {
 public:
  virtual std::string_view get(uint32_t id) const = 0;

 protected:
  ~StringTable() = default;
};

struct DeviceInfo {
  int32_t id;
  const char* name;  // soc name
  uint32_t compute_units;
  uint32_t copy_units;
};

// What begin() is told; the pointers stay valid until end() returns.
struct SessionInfo {
  const char* output_dir;  // created by the core; the sink writes its files here
  uint64_t base_ns;        // the session's start on the record clock: sinks print times relative to it
  int64_t base_unix_ns;    // the same instant as wall-clock time (for file headers)
  uint32_t pid;
  uint64_t categories;  // the ACL_PROF_* bits being collected
  const DeviceInfo* devices;
  uint32_t device_count;
  const StringTable* strings;
};

struct SessionTotals {
  uint64_t records;  // delivered to the sinks
  uint64_t dropped;  // lost because a thread's buffer was full (also sent as Dropped records)
  uint64_t end_ns;   // the session's stop on the record clock
};

class ProfilerSink : public PluginObject {
 public:
  virtual bool begin(const SessionInfo& session, char* error, size_t error_size) = 0;
  virtual void consume(const Record* records, size_t count) = 0;
  virtual void end(const SessionTotals& totals) = 0;
};

}  // namespace arun::plugin

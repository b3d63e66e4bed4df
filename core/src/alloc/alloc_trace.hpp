// AllocTrace: a text record of every device allocation, free and cross-stream use, written while a
// program runs (ASCEND_RUN_ALLOC_TRACE=FILE) so that `ascend-run replay` can run the same request
// sequence under each allocator policy and compare their time and memory.
//
// One line per event, fields separated by spaces, times in ns since the trace opened:
//   T a DEVICE STREAM BYTES PAGE ID   allocation (PAGE: 0 normal, 1 huge, 2 huge 1G; ID: 1, 2, ...)
//   T f DEVICE STREAM ID              free (STREAM 0: aclrtFree, ordered after every stream)
//   T u DEVICE STREAM ID              the block is also used on STREAM (arunMemRecordStream)
//   T x DEVICE STREAM                 the stream was destroyed
//   T s DEVICE STREAM                 the host waited for STREAM (0: the whole device) to finish
// STREAM is a process-wide stream id (0: none). IDs, not addresses, name blocks: a replay under
// another policy gets other addresses.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <mutex>
#include <string>

#include "arun/core/status.hpp"

namespace arun {

class AllocTrace {
 public:
  // Opens (truncates) `path`; Errc::invalid_param with the reason when it cannot be written.
  static Status open(const std::string& path, std::shared_ptr<AllocTrace>* out);
  ~AllocTrace();
  AllocTrace(const AllocTrace&) = delete;
  AllocTrace& operator=(const AllocTrace&) = delete;

  // Records an allocation and returns the id that names the block in later lines.
  uint64_t allocated(int32_t device, uint64_t stream, uint64_t bytes, uint32_t page);
  void freed(int32_t device, uint64_t stream, uint64_t id);
  void used(int32_t device, uint64_t stream, uint64_t id);
  void stream_retired(int32_t device, uint64_t stream);
  void synchronized(int32_t device, uint64_t stream);
  void flush();  // when a device closes, so the trace is whole on disk before aclFinalize

 private:
  explicit AllocTrace(std::FILE* file);
  uint64_t now_ns() const;

  std::mutex mu_;  // devices share the file; each line is written whole
  std::FILE* const file_;
  const std::chrono::steady_clock::time_point start_;
  uint64_t next_id_ = 1;
};

}  // namespace arun

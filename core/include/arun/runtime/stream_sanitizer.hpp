// Front door: the stream-order sanitizer (issue 25; `[runtime] stream_sanitizer`,
// ASCEND_RUN_STREAM_SANITIZER). See front_door.hpp for the conventions.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

extern "C" {
typedef struct arunBlock arunBlock;
}

namespace arun::rt {

namespace detail {
// 0 off, 1 report, 2 abort (set at aclInit).
extern std::atomic<uint8_t> g_stream_sanitizer;
}  // namespace detail

// One relaxed load: the only cost of the sanitizer when it is off.
inline bool stream_sanitizer_on() {
  return detail::g_stream_sanitizer.load(std::memory_order_relaxed) != 0;
}

// A block of the running launch mapped [dev_ptr, dev_ptr + bytes); `write`: the view is writable;
// `mapped`: false when the device refused the range (a freed block is still checked).
void sanitizer_block_access(arunBlock* block, const void* dev_ptr, uint64_t bytes, bool write, bool mapped);

// arunSyncRelease / arunSyncAcquire: `block` of the running launch, or nullptr for the calling
// host thread. Call only when stream_sanitizer_on().
void sanitizer_sync(arunBlock* block, const void* object, uint64_t value, bool release);

// Races reported since aclInit (unique pairs), and one report's text and how often it occurred.
// False for an index out of range.
uint32_t sanitizer_report_count();
bool sanitizer_report(uint32_t index, std::string* text, uint64_t* occurrences);

}  // namespace arun::rt

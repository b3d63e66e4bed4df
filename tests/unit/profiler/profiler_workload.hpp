// A small, fully known workload for the profiler tests: copies, device tasks, an event between
// streams, memsets, allocations and user marks, through the C API.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "acl/acl.h"
#include "acl/acl_prof.h"
#include "arun/arun_ext.h"

namespace arun::test {

struct WorkloadCounts {
  int copies_h2d = 0, copies_d2h = 0, device_tasks = 0, memsets = 0, waits = 0, records = 0;
  int sync_copies = 0;  // aclrtMemcpy: run on the calling thread, not on a stream
  int tasks() const { return copies_h2d + copies_d2h + device_tasks + memsets; }
  int streams = 3;
};

inline void bump(void* counter) {
  ++*static_cast<int*>(counter);
}

// Runs `rounds` rounds on three streams: s0 copies host->device and records an event; s1 waits for
// it, runs two device tasks and a memset of another buffer; s2 waits for it too and copies device->host. With
// `marks`, the rounds are inside a push/pop range, each round makes a mark, and one start/stop
// range spans them all.
inline WorkloadCounts run_workload(int rounds, bool marks) {
  WorkloadCounts n;
  EXPECT_EQ(aclrtSetDevice(0), ACL_SUCCESS);
  aclrtStream s[3] = {};
  for (auto& st : s) EXPECT_EQ(aclrtCreateStream(&st), ACL_SUCCESS);
  constexpr size_t kBytes = 64 << 10;
  void* dev = nullptr;
  void* scratch = nullptr;  // the memsets' target: s1 and s2 run at once, so they must not share memory
  void* host = nullptr;
  EXPECT_EQ(aclrtMalloc(&dev, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMalloc(&scratch, kBytes, ACL_MEM_MALLOC_HUGE_FIRST), ACL_SUCCESS);
  EXPECT_EQ(aclrtMallocHost(&host, kBytes), ACL_SUCCESS);
  aclrtEvent ev = nullptr;
  EXPECT_EQ(aclrtCreateEvent(&ev), ACL_SUCCESS);
  EXPECT_EQ(aclrtMemcpy(dev, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE), ACL_SUCCESS);
  ++n.sync_copies;
  void* stamp = nullptr;
  uint32_t range = 0;
  if (marks) {
    stamp = aclprofCreateStamp();
    EXPECT_NE(stamp, nullptr);
    EXPECT_EQ(aclprofSetStampTraceMessage(stamp, "rounds", 6), ACL_SUCCESS);
    EXPECT_EQ(aclprofRangeStart(stamp, &range), ACL_SUCCESS);
    EXPECT_EQ(aclprofPush(stamp), ACL_SUCCESS);
  }
  int ran = 0;
  for (int i = 0; i < rounds; ++i) {
    if (marks) {
      EXPECT_EQ(aclprofMark(stamp), ACL_SUCCESS);
    }
    EXPECT_EQ(aclrtMemcpyAsync(dev, kBytes, host, kBytes, ACL_MEMCPY_HOST_TO_DEVICE, s[0]), ACL_SUCCESS);
    ++n.copies_h2d;
    EXPECT_EQ(aclrtRecordEvent(ev, s[0]), ACL_SUCCESS);
    ++n.records;
    EXPECT_EQ(aclrtStreamWaitEvent(s[1], ev), ACL_SUCCESS);
    EXPECT_EQ(aclrtStreamWaitEvent(s[2], ev), ACL_SUCCESS);
    n.waits += 2;
    EXPECT_EQ(arunLaunchDeviceTask(&bump, &ran, s[1]), ACL_SUCCESS);
    EXPECT_EQ(arunLaunchDeviceTask(&bump, &ran, s[1]), ACL_SUCCESS);
    n.device_tasks += 2;
    EXPECT_EQ(aclrtMemsetAsync(scratch, kBytes, 0, 4096, s[1]), ACL_SUCCESS);
    ++n.memsets;
    EXPECT_EQ(aclrtMemcpyAsync(host, kBytes, dev, kBytes, ACL_MEMCPY_DEVICE_TO_HOST, s[2]), ACL_SUCCESS);
    ++n.copies_d2h;
    for (auto& st : s) EXPECT_EQ(aclrtSynchronizeStream(st), ACL_SUCCESS);
  }
  EXPECT_EQ(ran, n.device_tasks);
  if (marks) {
    EXPECT_EQ(aclprofPop(), ACL_SUCCESS);
    EXPECT_EQ(aclprofRangeStop(range), ACL_SUCCESS);
    aclprofDestroyStamp(stamp);
  }
  EXPECT_EQ(aclrtDestroyEvent(ev), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(dev), ACL_SUCCESS);
  EXPECT_EQ(aclrtFree(scratch), ACL_SUCCESS);
  EXPECT_EQ(aclrtFreeHost(host), ACL_SUCCESS);
  for (auto& st : s) EXPECT_EQ(aclrtDestroyStream(st), ACL_SUCCESS);
  EXPECT_EQ(aclrtResetDevice(0), ACL_SUCCESS);
  return n;
}

}  // namespace arun::test

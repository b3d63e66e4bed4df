#include "trace_replay.hpp"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace replay {

bool load(const std::string& path, Trace* out, std::string* error) {
  std::ifstream in(path);
  if (!in) return *error = path + ": cannot be read", false;
  *out = Trace{};
  std::unordered_map<uint64_t, bool> live;  // id -> allocated and not yet freed
  std::string line;
  for (size_t number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const std::string where = path + ":" + std::to_string(number) + ": ";
    std::istringstream f(line);
    uint64_t t = 0;
    std::string op;
    Event e;
    if (!(f >> t >> op >> e.device >> e.stream) || op.size() != 1 || e.device < 0) {
      return *error = where + "expected \"T OP DEVICE STREAM ...\"", false;
    }
    e.op = op[0];
    bool ok = true;
    switch (e.op) {
      case 'a':
        ok = bool(f >> e.bytes >> e.page >> e.id) && e.bytes > 0 && e.page <= 2 && e.id != 0;
        if (ok && !live.emplace(e.id, true).second) return *error = where + "block id allocated twice", false;
        ++out->allocations;
        break;
      case 'f':
      case 'u':
        ok = bool(f >> e.id);
        if (ok && live.find(e.id) == live.end()) return *error = where + "block id not allocated before", false;
        if (ok && e.op == 'f') live.erase(e.id);
        break;
      case 'x':
        ok = e.stream != 0;
        break;
      case 's':
        break;
      default:
        return *error = where + "unknown operation '" + op + "'", false;
    }
    std::string rest;
    if (!ok || (f >> rest)) return *error = where + "malformed '" + op + "' line", false;
    out->max_device = std::max(out->max_device, e.device);
    out->events.push_back(e);
  }
  return true;
}

namespace {

aclrtMemMallocPolicy page_policy(uint32_t page) {
  switch (page) {
    case 1:
      return ACL_MEM_MALLOC_HUGE_FIRST;
    case 2:
      return ACL_MEM_MALLOC_HUGE1G_ONLY;
    default:
      return ACL_MEM_MALLOC_NORMAL_ONLY;
  }
}

struct Replayer {
  const Trace& trace;
  Result* out;
  std::string* error;
  std::unordered_map<uint64_t, aclrtStream> streams;               // trace stream id -> our stream
  std::unordered_map<uint64_t, std::pair<void*, int32_t>> blocks;  // id -> (pointer, device)
  int32_t current = -1;

  bool fail(const char* call, aclError rc) {
    const char* m = aclGetRecentErrMsg();
    *error = std::string(call) + " failed (" + std::to_string(rc) + "): " + (m != nullptr ? m : "");
    return false;
  }
  bool use_device(int32_t d) {
    if (d == current) return true;
    if (aclError rc = aclrtSetDevice(d); rc != ACL_SUCCESS) return fail("aclrtSetDevice", rc);
    current = d;
    return true;
  }
  // Our stream for a trace stream (nullptr, the default stream, for stream 0).
  bool stream_for(uint64_t id, aclrtStream* s) {
    *s = nullptr;
    if (id == 0) return true;
    auto it = streams.find(id);
    if (it == streams.end()) {
      if (aclError rc = aclrtCreateStream(s); rc != ACL_SUCCESS) return fail("aclrtCreateStream", rc);
      streams.emplace(id, *s);
      return true;
    }
    *s = it->second;
    return true;
  }
  bool touch(void* p, uint64_t bytes, aclrtStream s) {
    const size_t n = size_t(std::min<uint64_t>(bytes, 64));
    if (aclError rc = aclrtMemsetAsync(p, n, 0, n, s); rc != ACL_SUCCESS) return fail("aclrtMemsetAsync", rc);
    return true;
  }

  bool step(const Event& e) {
    using clock = std::chrono::steady_clock;
    if (!use_device(e.device)) return false;
    aclrtStream s = nullptr;
    if (e.op == 'x') {
      auto it = streams.find(e.stream);
      if (it == streams.end()) return true;
      if (aclError rc = aclrtDestroyStream(it->second); rc != ACL_SUCCESS) return fail("aclrtDestroyStream", rc);
      streams.erase(it);
      return true;
    }
    if (!stream_for(e.stream, &s)) return false;
    if (e.op == 's') {
      const aclError rc = e.stream == 0 ? aclrtSynchronizeDevice() : aclrtSynchronizeStream(s);
      return rc == ACL_SUCCESS ? true : fail("synchronize", rc);
    }
    if (e.op == 'a') {
      void* p = nullptr;
      const auto t0 = clock::now();
      const aclError rc = e.stream == 0 ? aclrtMalloc(&p, e.bytes, page_policy(e.page))
                                        : arunMallocAsync(&p, e.bytes, page_policy(e.page), s);
      out->call_seconds += std::chrono::duration<double>(clock::now() - t0).count();
      ++out->calls;
      if (rc == ACL_ERROR_RT_MEMORY_ALLOCATION) {
        ++out->ooms;
        return true;
      }
      if (rc != ACL_SUCCESS) return fail("allocation", rc);
      blocks[e.id] = {p, e.device};
      return touch(p, e.bytes, s);
    }
    auto it = blocks.find(e.id);
    if (it == blocks.end()) return true;  // its allocation failed
    void* p = it->second.first;
    auto t0 = clock::now();
    aclError rc = ACL_SUCCESS;
    if (e.op == 'u') {
      rc = arunMemRecordStream(p, s);
    } else {
      if (e.stream == 0) {
        // The program freed it after making sure nothing used it any more (aclrtFree of a block
        // that queued work still uses is a fault): the replay knows no such point but this one.
        (void)aclrtSynchronizeDevice();
        t0 = clock::now();
        rc = aclrtFree(p);
      } else {
        rc = arunFreeAsync(p, s);
      }
      blocks.erase(it);
    }
    out->call_seconds += std::chrono::duration<double>(clock::now() - t0).count();
    ++out->calls;
    if (rc != ACL_SUCCESS) return fail(e.op == 'u' ? "arunMemRecordStream" : "free", rc);
    return e.op == 'u' ? touch(p, 64, s) : true;
  }
};

}  // namespace

bool run(const Trace& trace, Result* out, std::string* error) {
  *out = Result{};
  Replayer r{trace, out, error, {}, {}, -1};
  const auto start = std::chrono::steady_clock::now();
  bool ok = true;
  for (const Event& e : trace.events) {
    if (!(ok = r.step(e))) break;
  }
  // What the trace never freed (the program's leaks, or a trace cut short) goes now.
  for (auto& [id, block] : r.blocks) {
    if (r.use_device(block.second)) (void)aclrtFree(block.first);
  }
  for (int32_t d = 0; d <= trace.max_device; ++d) {
    if (aclrtSetDevice(d) != ACL_SUCCESS) continue;
    (void)aclrtSynchronizeDevice();
  }
  for (auto& [id, s] : r.streams) (void)aclrtDestroyStream(s);
  out->wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (int32_t d = 0; d <= trace.max_device; ++d) {
    arunMemStats st{};
    if (arunGetMemStats(d, &st) != ACL_SUCCESS) continue;
    out->peak_requested += st.requested.peak;
    out->peak_reserved += st.reserved.peak;
    out->chunk_acquires += st.chunkAcquires;
    out->policy = st.policy;
    (void)aclrtResetDeviceForce(d);
  }
  return ok;
}

}  // namespace replay

// The stream-order sanitizer (stream_sanitizer.hpp states the model).
#include "sanitizer/stream_sanitizer.hpp"

#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "arun/runtime/recorder.hpp"
#include "base/logging.hpp"
#include "runtime/event.hpp"
#include "runtime/ipc_event.hpp"
#include "runtime/notify.hpp"
#include "runtime/runtime.hpp"
#include "runtime/stream.hpp"
#include "runtime/task.hpp"
#include "sched/scheduler.hpp"

namespace arun::rt::detail {
std::atomic<uint8_t> g_stream_sanitizer{0};
}  // namespace arun::rt::detail

namespace arun::san {

// ---------------------------------------------------------------- vector clocks

struct Clock {
  std::vector<std::pair<uint32_t, uint32_t>> v;  // (agent, time), sorted by agent
  uint32_t get(uint32_t a) const {
    auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(a, 0u));
    return it != v.end() && it->first == a ? it->second : 0;
  }
  uint32_t tick(uint32_t a) {
    auto it = std::lower_bound(v.begin(), v.end(), std::make_pair(a, 0u));
    if (it != v.end() && it->first == a) return ++it->second;
    v.insert(it, {a, 1});
    return 1;
  }
  void join(const Clock& o) {
    std::vector<std::pair<uint32_t, uint32_t>> out;
    out.reserve(v.size() + o.v.size());
    size_t i = 0, j = 0;
    while (i < v.size() || j < o.v.size()) {
      if (j == o.v.size() || (i < v.size() && v[i].first < o.v[j].first)) {
        out.push_back(v[i++]);
      } else if (i == v.size() || o.v[j].first < v[i].first) {
        out.push_back(o.v[j++]);
      } else {
        out.push_back({v[i].first, std::max(v[i].second, o.v[j].second)});
        ++i, ++j;
      }
    }
    v.swap(out);
  }
};

namespace {

constexpr int kFrames = 24;
constexpr uint64_t kPage = 4096;

std::atomic<uint32_t> g_next_agent{1};
std::atomic<uint64_t> g_generation{0};

// Where an access came from: enough to name it in a report.
struct Site {
  std::string what;        // "copy device->host", "memset", "kernel Add", "host call", "aclrtFree"
  std::string agent_name;  // "stream 3 (device 0)" or "host thread 1234"
  bool on_stream = false;
  int32_t stream_id = -1;
  int32_t device = -1;
  uint64_t seq = 0;  // task position in its stream (0: host access)
  uint64_t correlation = 0;
  void* frames[kFrames];
  int nframes = 0;
};

}  // namespace

struct TaskState {
  std::shared_ptr<const Clock> submit_clock;
  std::shared_ptr<Site> site;
  uint32_t agent = 0;
  uint32_t epoch = 0;
  std::shared_ptr<const Clock> clock;  // at ready
  bool ready = false;
  // Known ranges of a copy / memset (pending free checks before it is ready).
  struct Range {
    const void* space;
    uint64_t begin, end;
    bool write;
  };
  std::vector<Range> ranges;
  bool pinned = false;  // registered pinned-memory uses
  // Kernels: how many frees had happened when it was submitted (State::free_seq); a free after
  // that of memory the kernel maps is a use of freed memory. `kernel_live`: counted in live_kernels.
  uint64_t free_seq = 0;
  bool kernel_live = false;
  // A blocking host call (its stream goes on only when it returns): what it synchronises with is
  // ordered before the stream's next task, so host_join joins it into this stream's clock.
  uint64_t blocking_stream = 0;  // Stream::uid, 0: not a blocking host call
};

namespace {

struct Access {
  uint64_t begin = 0, end = 0;
  uint32_t agent = 0, epoch = 0;
  bool write = false;
  bool freed = false;  // freed with arunFreeAsync by another stream: racing with it is a reuse
  std::shared_ptr<const Site> site;
  std::shared_ptr<const Site> free_site;
};

struct Space {
  std::multimap<uint64_t, Access> map;
  uint64_t max_len = 0;
};

struct StreamState {
  uint32_t agent = 0;
  int32_t device = -1;
  Clock clock;
};

// An async copy or fill using pinned host memory, while in flight.
struct PinUse {
  TaskState* owner;
  uint64_t begin, end;
  bool device_writes;
  bool active = false;    // handed to a device unit
  bool revealed = false;  // a host access faulted on it and was reported: unprotected
};

enum class Kind { Raw, War, Waw, HostPinned, FreeInUse, Reuse, SyncCopy };

const char* kind_name(Kind k) {
  switch (k) {
    case Kind::Raw:
      return "cross-stream read after write";
    case Kind::War:
      return "cross-stream write after read";
    case Kind::Waw:
      return "cross-stream write after write";
    case Kind::HostPinned:
      return "host access of in-flight pinned memory";
    case Kind::FreeInUse:
      return "free while in use";
    case Kind::Reuse:
      return "reuse through the allocator's cache";
    case Kind::SyncCopy:
      return "synchronous access racing queued work";
  }
  return "race";
}

struct Race {
  Kind kind;
  std::shared_ptr<const Site> first, second, free_site;
  bool first_write, second_write;
  const void* space;
  uint64_t first_begin, first_end, second_begin, second_end;
};

struct Report {
  std::string text;
  uint64_t count = 0;
};

// One host thread's clock (see host_state for the rules).
struct HostState {
  uint64_t key = 0;  // in State::hosts
  uint32_t agent = 0;
  Clock clock;
  std::shared_ptr<const Clock> snap;
  bool snap_given = false;
  uint64_t exited_seen = 0;  // State::exited_version joined so far
};

// A block freed while kernels submitted before the free were queued: a map of it by one of them
// is a use of freed memory (their ranges are unknown until they run).
struct FreedRange {
  const void* space;
  uint64_t begin, end;
  uint64_t seq;                  // State::free_seq of this free
  std::vector<uint32_t> exempt;  // arunFreeAsync: the stream's and recorded streams' agents
  std::shared_ptr<const Site> site;
};

struct State {
  std::mutex mu;
  std::unordered_map<uint64_t, HostState> hosts;  // live host threads, by registration
  uint64_t next_host_key = 0;
  Clock exited;  // the join of the clocks of host threads that exited
  uint64_t exited_version = 0;
  uint64_t free_seq = 0;
  std::multiset<uint64_t> live_kernels;  // TaskState::free_seq of kernels not yet destroyed
  std::deque<FreedRange> freed_ranges;   // by seq
  // arunSyncRelease / arunSyncAcquire: per object, the clocks published under each value.
  std::unordered_map<const void*, std::map<uint64_t, Clock>> sync_clocks;
  Mode mode = Mode::Off;
  uint64_t generation = 0;
  std::unordered_map<const void*, Space> spaces;
  std::unordered_map<uint64_t, StreamState> streams;  // by Stream::uid
  std::unordered_map<const void*, Clock> notify_clocks;
  std::unordered_map<uint64_t, Clock> value_clocks;
  // IPC events recorded in this process, by page (IpcEventShare::identity) and record number: a
  // wait on the event opened in this process joins the clock of the record it waits for.
  std::unordered_map<uint64_t, std::map<uint64_t, Clock>> ipc_clocks;
  std::unordered_set<TaskState*> pending;  // known ranges, not ready yet
  std::map<std::pair<const void*, uint64_t>, std::set<uint32_t>> recorded_streams;
  std::vector<PinUse> pins;
  std::map<uint64_t, int> page_prot;  // pages we protected: page address -> PROT_*
  std::vector<Report> reports;
  std::unordered_map<std::string, size_t> by_key;
  uint64_t occurrences = 0;
};

State& state() {
  static State* s = new State();  // never destroyed: exit handlers may still report
  return *s;
}

thread_local TaskState* t_host_task = nullptr;
thread_local int t_runtime_access = 0;
thread_local HostState* t_host = nullptr;  // in State::hosts while t_host_generation is current
thread_local uint64_t t_host_generation = 0;

// A thread's exit hands its clock to the others (see host_state).
struct HostExit {
  ~HostExit();
};
thread_local HostExit t_host_exit;

// The calling thread's clock (under State::mu). Each host thread has its own, joined by what the
// runtime sees: synchronize calls, completed queries, event syncs, arunSyncAcquire; a host call
// runs with its task's clock instead. How threads order themselves (creation, join, a mutex, a
// queue) is invisible, so two rules stand in for the common cases:
//   - a thread seen for the first time starts from the join of every host thread's clock (as if
//     all of them had created it just now: work set up before the thread is ordered before it);
//   - a thread that exits hands its clock to every other thread at its next sanitizer call (as if
//     joined: results it synchronised are ordered before what the joiner does next).
// Anything else (a thread that synchronised a stream and signals another through a condition
// variable) is not seen: the other thread must synchronise itself (aclrtSynchronizeEvent on a
// completed event costs a lookup). `snap` is the clock a submission carries; once one was given
// out, the next host access ticks first, so it is not ordered before the submitted task.
HostState& host_state(State& s) {
  HostState* h = t_host;
  if (h == nullptr || t_host_generation != s.generation) {
    (void)&t_host_exit;  // constructs it, so its destructor runs at thread exit
    const uint64_t key = ++s.next_host_key;
    h = &s.hosts[key];
    h->key = key;
    h->agent = g_next_agent.fetch_add(1);
    for (auto& [k, other] : s.hosts) {
      if (k != key) h->clock.join(other.clock);
    }
    h->clock.join(s.exited);
    h->exited_seen = s.exited_version;
    h->clock.tick(h->agent);
    t_host = h;
    t_host_generation = s.generation;
  } else if (h->exited_seen != s.exited_version) {
    h->clock.join(s.exited);
    h->exited_seen = s.exited_version;
    h->snap.reset();
  }
  return *h;
}

HostExit::~HostExit() {
  if (t_host == nullptr) return;
  State& s = state();
  std::lock_guard lock(s.mu);
  if (t_host_generation == s.generation) {
    s.exited.join(t_host->clock);
    ++s.exited_version;
    s.hosts.erase(t_host->key);
  }
  t_host = nullptr;
}

std::string thread_name() {
  return "host thread " + std::to_string(static_cast<long>(syscall(SYS_gettid)));
}

StreamState& stream_state(State& s, const Stream* stream) {
  auto [it, fresh] = s.streams.try_emplace(stream->uid());
  if (fresh) {
    it->second.agent = g_next_agent.fetch_add(1);
    it->second.device = stream->scheduler() != nullptr ? stream->scheduler()->device_id() : -1;
  }
  return it->second;
}

std::string stream_name(const Stream* stream) {
  const int32_t dev = stream->scheduler() != nullptr ? stream->scheduler()->device_id() : -1;
  return "stream " + std::to_string(stream->id()) + " (device " + std::to_string(dev) + ")";
}

std::string describe_work(const Task& t) {
  auto side = [](const plugin::MemRef& m) { return m.device == nullptr ? "host" : "device"; };
  switch (t.kind) {
    case plugin::WorkKind::Copy:
      return std::string("copy ") + side(t.src) + "->" + side(t.dst);
    case plugin::WorkKind::Copy2D:
      return std::string("2-D copy ") + side(t.src) + "->" + side(t.dst);
    case plugin::WorkKind::Memset:
      return "memset";
    case plugin::WorkKind::Kernel:
      return t.host_fn != nullptr ? "device task" : "kernel";
  }
  return "task";
}

// ---------------------------------------------------------------- call sites

std::mutex g_sym_mu;
std::unordered_map<uintptr_t, std::string> g_sym_cache;

// "function (file:line)" through addr2line where the module has debug info, else the dynamic
// symbol or module+offset.
std::string symbolize(void* frame) {
  const auto addr = reinterpret_cast<uintptr_t>(frame);
  {
    std::lock_guard lock(g_sym_mu);
    if (auto it = g_sym_cache.find(addr); it != g_sym_cache.end()) return it->second;
  }
  Dl_info info{};
  std::string out;
  if (dladdr(frame, &info) != 0 && info.dli_fname != nullptr) {
    const uintptr_t base = reinterpret_cast<uintptr_t>(info.dli_fbase);
    const uintptr_t offset = addr - 1 - base;  // the call, not the return address
    char cmd[4352];
    if (std::strlen(info.dli_fname) < 4096 && std::strchr(info.dli_fname, '\'') == nullptr) {
      std::snprintf(cmd, sizeof cmd, "addr2line -f -C -e '%s' 0x%" PRIxPTR " 2>/dev/null", info.dli_fname, offset);
      if (FILE* p = popen(cmd, "r")) {
        char fn[1024] = {0}, line[2048] = {0};
        if (std::fgets(fn, sizeof fn, p) != nullptr && std::fgets(line, sizeof line, p) != nullptr) {
          fn[std::strcspn(fn, "\n")] = 0;
          line[std::strcspn(line, "\n")] = 0;
          if (std::strcmp(fn, "??") != 0) out = fn;
          if (std::strncmp(line, "??", 2) != 0) out += std::string(out.empty() ? "" : " ") + "(" + line + ")";
        }
        pclose(p);
      }
    }
    if (out.empty() && info.dli_sname != nullptr) out = info.dli_sname;
    if (out.empty() || out.find('(') == std::string::npos) {
      char buf[64];
      std::snprintf(buf, sizeof buf, "+0x%" PRIxPTR, offset);
      const char* slash = std::strrchr(info.dli_fname, '/');
      out += std::string(out.empty() ? "" : " ") + "(" + (slash ? slash + 1 : info.dli_fname) + buf + ")";
    }
  } else {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%" PRIxPTR, addr);
    out = buf;
  }
  std::lock_guard lock(g_sym_mu);
  g_sym_cache.emplace(addr, out);
  return out;
}

bool is_api_name(const char* name) {
  return name != nullptr && (std::strncmp(name, "acl", 3) == 0 || std::strncmp(name, "arun", 4) == 0 ||
                             std::strncmp(name, "Hccl", 4) == 0);
}

// The public call that made the access (the outermost ACL / ascend-run / HCCL entry on the stack)
// and the frames of its caller.
void describe_stack(const Site& site, std::string* api, std::string* where) {
  int api_frame = -1;
  for (int i = 0; i < site.nframes; ++i) {
    Dl_info info{};
    if (dladdr(site.frames[i], &info) != 0 && is_api_name(info.dli_sname)) {
      api_frame = i;
      *api = info.dli_sname;
    }
  }
  int first = api_frame + 1;
  if (api_frame < 0) {
    // No public call (a host access caught by a fault, a graph's launcher): skip the runtime's own
    // frames and the signal trampoline.
    Dl_info self{};
    (void)dladdr(reinterpret_cast<void*>(&describe_stack), &self);
    while (first < site.nframes) {
      Dl_info info{};
      const bool ours = dladdr(site.frames[first], &info) != 0 && info.dli_fbase == self.dli_fbase;
      const bool trampoline = info.dli_sname != nullptr && std::strcmp(info.dli_sname, "__restore_rt") == 0;
      if (!ours && !trampoline) break;
      ++first;
    }
    if (first < site.nframes) {
      Dl_info info{};
      if (dladdr(site.frames[first], &info) != 0 && info.dli_fname != nullptr &&
          std::strstr(info.dli_fname, "libc.so") != nullptr)
        ++first;  // the kernel's sigreturn frame in libc (no dynamic symbol)
    }
  }
  int shown = 0;
  for (int i = first; i < site.nframes && shown < 3; ++i, ++shown) {
    std::string s = symbolize(site.frames[i]);
    if (s.find("__libc_start") != std::string::npos) break;
    *where += "\n      at " + s;
  }
}

std::string site_key(const Site& s) {
  std::string k = s.what + "/" + std::to_string(s.on_stream ? s.stream_id : -2);
  char buf[24];
  for (int i = 0; i < s.nframes; ++i) {
    std::snprintf(buf, sizeof buf, ",%" PRIxPTR, reinterpret_cast<uintptr_t>(s.frames[i]));
    k += buf;
  }
  return k;
}

std::string hex_range(uint64_t b, uint64_t e) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "[0x%" PRIx64 ", 0x%" PRIx64 ") (%" PRIu64 " bytes)", b, e, e - b);
  return buf;
}

std::string describe_access(const Site& s, bool write, uint64_t b, uint64_t e) {
  std::string api, where;
  describe_stack(s, &api, &where);
  std::string out = std::string(write ? "write" : "read") + " by ";
  out += api.empty() ? s.what : api + " (" + s.what + ")";
  out += " on " + s.agent_name;
  if (s.seq != 0) out += ", task " + std::to_string(s.seq);
  out += ", bytes " + hex_range(b, e);
  return out + where;
}

std::string fix_for(const Race& r) {
  const Site& a = *r.first;
  const Site& b = *r.second;
  switch (r.kind) {
    case Kind::HostPinned:
      return "synchronize before touching the buffer: aclrtSynchronizeStream(" + a.agent_name +
             ") or aclrtSynchronizeEvent on an event recorded after the " + a.what;
    case Kind::FreeInUse:
      return "wait for " + a.agent_name + " (aclrtSynchronizeStream, or an event recorded after the " + a.what +
             ") before freeing, or free with arunFreeAsync on that stream";
    case Kind::Reuse:
      return "before freeing on " + (r.free_site ? r.free_site->agent_name : std::string("its stream")) +
             ", call arunMemRecordStream for " + a.agent_name +
             ", or make that stream wait for an event recorded after the " + a.what;
    default:
      break;
  }
  if (a.on_stream && b.on_stream) {
    return "record an event on " + a.agent_name + " after the " + a.what + " (task " + std::to_string(a.seq) +
           ") and make " + b.agent_name + " wait on it (aclrtStreamWaitEvent) before the " + b.what;
  }
  if (a.on_stream) {
    return "synchronize with " + a.agent_name +
           " (aclrtSynchronizeStream, or aclrtSynchronizeEvent on an event "
           "recorded after the " +
           a.what + ") before the " + b.what;
  }
  return "issue the " + b.what + " from " + a.agent_name + " after the " + a.what +
         ", or order the two threads and synchronize before submitting";
}

std::string format_race(const Race& r) {
  std::string where = r.space == nullptr ? "host memory" : "device memory";
  std::string text = "stream sanitizer: " + std::string(kind_name(r.kind)) + " on " + where;
  text += "\n  first:  " + describe_access(*r.first, r.first_write, r.first_begin, r.first_end);
  text += "\n  second: " + describe_access(*r.second, r.second_write, r.second_begin, r.second_end);
  if (r.kind == Kind::Reuse && r.free_site) {
    std::string api, at;
    describe_stack(*r.free_site, &api, &at);
    text += "\n  the block was freed by " + (api.empty() ? r.free_site->what : api) + " on " + r.free_site->agent_name +
            " while the first access was unordered with it" + at;
  }
  text += "\n  nothing orders them. Fix: " + fix_for(r);
  return text;
}

// Reports collected under the mutex are formatted and logged after it is released.
void publish(std::vector<Race>& races) {
  if (races.empty()) return;
  State& s = state();
  for (Race& r : races) {
    const std::string key = std::to_string(static_cast<int>(r.kind)) + "|" + site_key(*r.first) + "|" +
                            site_key(*r.second) + (r.first_write ? "w" : "r") + (r.second_write ? "w" : "r");
    size_t index;
    {
      std::lock_guard lock(s.mu);
      ++s.occurrences;
      auto it = s.by_key.find(key);
      if (it != s.by_key.end()) {
        ++s.reports[it->second].count;
        continue;
      }
      index = s.reports.size();
      s.reports.push_back({std::string(), 1});
      s.by_key.emplace(key, index);
    }
    std::string text = format_race(r);
    if (prof::on(prof::kTasks)) {
      // An instant in the timeline linking the two tasks (their launches' correlation ids).
      plugin::Record rec = prof::make_record(plugin::RecordKind::Mark);
      rec.name = prof::intern(std::string("stream race: ") + kind_name(r.kind));
      rec.device = r.second->device;
      rec.stream = r.second->stream_id;
      rec.t0 = prof::now_ns();
      rec.value0 = r.first->correlation;
      rec.value1 = r.second->correlation;
      rec.value2 = r.first->seq;
      rec.value3 = r.second->seq;
      prof::emit(rec);
    }
    log().error("{}", text);
    Mode mode;
    {
      std::lock_guard lock(s.mu);
      if (index < s.reports.size()) s.reports[index].text = text;
      mode = s.mode;
    }
    if (mode == Mode::Abort) {
      std::fprintf(stderr, "%s\nstream sanitizer: aborting (stream_sanitizer = abort)\n", text.c_str());
      std::fflush(stderr);
      std::abort();
    }
  }
  races.clear();
}

std::shared_ptr<Site> host_site(const char* what) {
  auto site = std::make_shared<Site>();
  site->what = what;
  if (TaskState* ht = t_host_task) {
    site->agent_name = ht->site->agent_name + " (in a host call)";
    site->on_stream = true;
    site->stream_id = ht->site->stream_id;
    site->device = ht->site->device;
    site->seq = ht->site->seq;
  } else {
    site->agent_name = thread_name();
  }
  site->correlation = prof::current_correlation();
  site->nframes = backtrace(site->frames, kFrames);
  return site;
}

// Compares `x` with the accesses it overlaps, collects races and records it (under the mutex).
void check_insert(State& s, const void* space_key, Access x, const Clock& vc, std::vector<Race>& out) {
  if (x.end <= x.begin) return;
  Space& sp = s.spaces[space_key];
  auto it = sp.map.lower_bound(x.begin > sp.max_len + 1 ? x.begin - sp.max_len - 1 : 0);
  while (it != sp.map.end() && it->first <= x.end) {
    Access& e = it->second;
    const bool same_task = e.site == x.site && e.agent == x.agent && e.epoch == x.epoch;
    if (same_task && e.write == x.write && e.end >= x.begin && e.begin <= x.end) {
      // Blocks of one launch map adjacent slices: keep one record for the whole range.
      x.begin = std::min(x.begin, e.begin);
      x.end = std::max(x.end, e.end);
      it = sp.map.erase(it);
      continue;
    }
    if (e.end <= x.begin || e.begin >= x.end) {
      ++it;
      continue;
    }
    // Two host threads' own accesses are not compared: how threads order each other is invisible
    // here (and malloc hands one thread's freed host memory to another), ThreadSanitizer's domain.
    const bool host_pair = !e.site->on_stream && !x.site->on_stream;
    const bool ordered = host_pair || (e.agent == x.agent ? e.epoch <= x.epoch : vc.get(e.agent) >= e.epoch);
    if (!ordered && (e.write || x.write)) {
      Kind k = e.freed ? Kind::Reuse : (e.write ? (x.write ? Kind::Waw : Kind::Raw) : Kind::War);
      if (!e.freed && (!x.site->on_stream || !e.site->on_stream)) k = Kind::SyncCopy;
      out.push_back({k, e.site, x.site, e.free_site, e.write, x.write, space_key, e.begin, e.end, x.begin, x.end});
      if (e.freed) {  // reported once: the block now belongs to its new user
        it = sp.map.erase(it);
        continue;
      }
    }
    const bool covered = e.begin >= x.begin && e.end <= x.end;
    if (ordered && covered && (x.write || !e.write)) {
      it = sp.map.erase(it);  // anything racing with e races with x too
      continue;
    }
    ++it;
  }
  sp.max_len = std::max(sp.max_len, x.end - x.begin);
  sp.map.emplace(x.begin, std::move(x));
}

// ---------------------------------------------------------------- pinned pages

int desired_prot(const State& s, uint64_t page) {
  int aw = 0, ar = 0, pw = 0, pr = 0;
  for (const PinUse& u : s.pins) {
    if (u.revealed || u.end <= page || u.begin >= page + kPage) continue;
    if (u.active) {
      (u.device_writes ? aw : ar)++;
    } else {
      (u.device_writes ? pw : pr)++;
    }
  }
  if (aw > 0) return PROT_READ | PROT_WRITE;
  if (ar > 0) return PROT_READ;
  if (pw > 0) return PROT_NONE;
  if (pr > 0) return PROT_READ;
  return PROT_READ | PROT_WRITE;
}

// Only whole pages inside the range are protected (sizes are rounded to pages while on), and only
// a sample of them: the first kSampledPages and the last. The device model copies through the
// program's own mapping, so pages the device writes must be open while the copy runs anyway
// (on_dispatch); what protection adds is catching host accesses between submission and dispatch,
// and host writes while the device reads. Changing a page's protection costs a hypervisor exit per
// page touched afterwards in a paravirtualised guest: protecting every page made the demo's 4 MiB
// copies 13x (H2D) and 87x (D2H) slower than the sample (bench/README.md, "Stream sanitizer"),
// while a racing host access almost always touches the start of the buffer (or scans it, or reads
// its end). Pages of the range that are protected now (by this or an overlapping use) are
// recomputed too.
constexpr uint64_t kSampledPages = 16;

void reprotect(State& s, uint64_t begin, uint64_t end) {
  const uint64_t first = (begin + kPage - 1) & ~(kPage - 1);
  const uint64_t last = end & ~(kPage - 1);
  if (last <= first) return;
  std::vector<uint64_t> pages;
  for (uint64_t p = first; p < last && p < first + kSampledPages * kPage; p += kPage) pages.push_back(p);
  if (last - kPage >= first + kSampledPages * kPage) pages.push_back(last - kPage);
  for (auto it = s.page_prot.lower_bound(first); it != s.page_prot.end() && it->first < last; ++it)
    pages.push_back(it->first);
  std::sort(pages.begin(), pages.end());
  pages.erase(std::unique(pages.begin(), pages.end()), pages.end());
  uint64_t run = 0, run_end = 0;
  int run_prot = -1;
  auto apply = [&] {
    if (run_prot < 0 || run_end <= run) return;
    (void)mprotect(reinterpret_cast<void*>(run), run_end - run, run_prot);
    for (uint64_t p = run; p < run_end; p += kPage) {
      if (run_prot == (PROT_READ | PROT_WRITE)) {
        s.page_prot.erase(p);
      } else {
        s.page_prot[p] = run_prot;
      }
    }
  };
  for (uint64_t p : pages) {
    const int want = desired_prot(s, p);
    auto it = s.page_prot.find(p);
    const int have = it == s.page_prot.end() ? (PROT_READ | PROT_WRITE) : it->second;
    const int next = want == have ? -1 : want;
    if (next != run_prot || p != run_end) {
      apply();
      run = p;
      run_prot = next;
    }
    run_end = p + kPage;
  }
  apply();
}

void drop_pins(State& s, TaskState* owner) {
  std::vector<std::pair<uint64_t, uint64_t>> ranges;
  for (size_t i = 0; i < s.pins.size();) {
    if (s.pins[i].owner == owner) {
      ranges.push_back({s.pins[i].begin, s.pins[i].end});
      s.pins.erase(s.pins.begin() + static_cast<long>(i));
    } else {
      ++i;
    }
  }
  for (auto& r : ranges) reprotect(s, r.first, r.second);
}

struct sigaction g_old_segv;
std::atomic<bool> g_handler_installed{false};

bool handle_fault(uint64_t addr, void* uctx) {
  State& s = state();
  std::vector<Race> races;
  {
    std::lock_guard lock(s.mu);
    if (s.page_prot.find(addr & ~(kPage - 1)) == s.page_prot.end()) return false;
    bool write = true;
#if defined(__x86_64__)
    if (uctx != nullptr) write = (static_cast<ucontext_t*>(uctx)->uc_mcontext.gregs[REG_ERR] & 2) != 0;
#else
    (void)uctx;
#endif
    std::vector<std::pair<uint64_t, uint64_t>> ranges;
    std::shared_ptr<Site> me;
    for (PinUse& u : s.pins) {
      if (u.revealed || addr < (u.begin & ~(kPage - 1)) || addr >= u.end) continue;
      u.revealed = true;
      ranges.push_back({u.begin, u.end});
      if (t_runtime_access > 0) continue;        // the runtime's own synchronous copy: checked as such
      if (!write && !u.device_writes) continue;  // both read
      TaskState* ht = t_host_task;
      if (ht != nullptr) {
        // A host call is ordered with the copy only through its stream's clock.
        if (!u.owner->ready) continue;
        if (ht->clock && ht->clock->get(u.owner->agent) >= u.owner->epoch) continue;
      }
      if (!me) me = host_site(write ? "host store" : "host load");
      races.push_back({Kind::HostPinned, u.owner->site, me, nullptr, u.device_writes, write, nullptr, u.begin, u.end,
                       addr, addr + 1});
    }
    if (ranges.empty()) {
      // A page of ours without a use covering the address: open it rather than loop on the fault.
      (void)mprotect(reinterpret_cast<void*>(addr & ~(kPage - 1)), kPage, PROT_READ | PROT_WRITE);
      s.page_prot.erase(addr & ~(kPage - 1));
      return true;
    }
    for (auto& r : ranges) reprotect(s, r.first, r.second);
  }
  publish(races);
  return true;
}

void on_segv(int sig, siginfo_t* info, void* uctx) {
  if (rt::stream_sanitizer_on() && info != nullptr && handle_fault(reinterpret_cast<uint64_t>(info->si_addr), uctx)) {
    return;
  }
  if ((g_old_segv.sa_flags & SA_SIGINFO) != 0 && g_old_segv.sa_sigaction != nullptr) {
    g_old_segv.sa_sigaction(sig, info, uctx);
  } else if (g_old_segv.sa_handler != SIG_IGN && g_old_segv.sa_handler != SIG_DFL && g_old_segv.sa_handler != nullptr) {
    g_old_segv.sa_handler(sig);
  } else {
    signal(sig, SIG_DFL);  // the access faults again, and the default action runs
  }
}

void install_handler() {
  if (g_handler_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_sigaction = &on_segv;
  sa.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &g_old_segv);
  void* warm[2];
  (void)backtrace(warm, 2);  // loads the unwinder now, not inside the handler
}

}  // namespace

// ---------------------------------------------------------------- lifetime

bool parse_mode(const std::string& text, Mode* out) {
  if (text == "off") {
    *out = Mode::Off;
  } else if (text == "report") {
    *out = Mode::Report;
  } else if (text == "abort") {
    *out = Mode::Abort;
  } else {
    return false;
  }
  return true;
}

const char* mode_name(Mode mode) {
  return mode == Mode::Report ? "report" : mode == Mode::Abort ? "abort" : "off";
}

void enable(Mode mode) {
  State& s = state();
  {
    std::lock_guard lock(s.mu);
    for (auto& [page, prot] : s.page_prot) (void)mprotect(reinterpret_cast<void*>(page), kPage, PROT_READ | PROT_WRITE);
    s.spaces.clear();
    s.streams.clear();
    s.notify_clocks.clear();
    s.value_clocks.clear();
    s.ipc_clocks.clear();
    s.ipc_clocks.clear();
    s.pending.clear();
    s.recorded_streams.clear();
    s.pins.clear();
    s.page_prot.clear();
    s.reports.clear();
    s.by_key.clear();
    s.occurrences = 0;
    s.hosts.clear();
    s.exited = Clock{};
    s.exited_version = 0;
    s.live_kernels.clear();
    s.freed_ranges.clear();
    s.sync_clocks.clear();
    s.mode = mode;
    s.generation = g_generation.fetch_add(1) + 1;
  }
  if (mode != Mode::Off) {
    install_handler();
    log().info("stream sanitizer: on ({})", mode_name(mode));
  }
  rt::detail::g_stream_sanitizer.store(static_cast<uint8_t>(mode), std::memory_order_release);
}

void disable() {
  if (!on()) return;
  rt::detail::g_stream_sanitizer.store(0, std::memory_order_release);
  State& s = state();
  std::lock_guard lock(s.mu);
  for (auto& [page, prot] : s.page_prot) (void)mprotect(reinterpret_cast<void*>(page), kPage, PROT_READ | PROT_WRITE);
  s.page_prot.clear();
  s.pins.clear();
  if (!s.reports.empty()) {
    log().warn("stream sanitizer: {} race(s) reported, {} occurrence(s) in all", s.reports.size(), s.occurrences);
  }
  // The reports stay readable (arunStreamSanitizerGetReport) until the next aclInit; the rest goes.
  s.spaces.clear();
  s.streams.clear();
  s.pending.clear();
  s.notify_clocks.clear();
  s.value_clocks.clear();
  s.ipc_clocks.clear();
  s.recorded_streams.clear();
  s.hosts.clear();
  s.generation = g_generation.fetch_add(1) + 1;  // threads' cached HostState pointers are stale now
  s.exited = Clock{};
  s.freed_ranges.clear();
  s.sync_clocks.clear();
  // live_kernels stays: tasks still alive remove themselves when destroyed.
}

uint64_t pinned_size(uint64_t bytes) {
  return on() ? (bytes + kPage - 1) & ~(kPage - 1) : bytes;
}

// ---------------------------------------------------------------- scheduler hooks

void name_task(Task* task, const char* op_name) {
  if (!task->san) task->san = std::make_shared<TaskState>();
  task->san->site = std::make_shared<Site>();
  task->san->site->what = std::string("kernel ") + op_name;
}

void on_submit(Task* task) {
  auto st = task->san ? task->san : std::make_shared<TaskState>();
  if (!st->site) st->site = std::make_shared<Site>();
  Site& site = *st->site;
  if (site.what.empty()) {
    site.what = task->task_kind == TaskKind::HostCall ? "host call" : describe_work(*task);
  }
  site.on_stream = true;
  site.agent_name = stream_name(task->stream);
  site.stream_id = task->stream->id();
  site.device = task->scheduler != nullptr ? task->scheduler->device_id() : -1;
  site.correlation = task->correlation;
  site.nframes = backtrace(site.frames, kFrames);
  task->san = st;
  if (TaskState* ht = t_host_task) st->submit_clock = ht->clock;
  State& s = state();
  std::lock_guard lock(s.mu);
  if (!st->submit_clock) {
    HostState& h = host_state(s);
    if (!h.snap) h.snap = std::make_shared<const Clock>(h.clock);
    h.snap_given = true;
    st->submit_clock = h.snap;
  }
  if (task->task_kind != TaskKind::Work) return;
  if (task->kind == plugin::WorkKind::Kernel) {
    // Its ranges are known only when it runs: frees from now on are checked against its maps.
    st->free_seq = s.free_seq;
    st->kernel_live = true;
    s.live_kernels.insert(st->free_seq);
    return;
  }
  // Copies and fills know their ranges now: kept for free checks until the task is ready.
  auto extent = [&](bool dst) -> uint64_t {
    if (task->kind == plugin::WorkKind::Copy2D) {
      return task->height == 0 ? 0 : (dst ? task->dpitch : task->spitch) * (task->height - 1) + task->width;
    }
    return task->bytes;
  };
  st->ranges.push_back({task->dst.device, task->dst.addr, task->dst.addr + extent(true), true});
  if (task->kind != plugin::WorkKind::Memset) {
    st->ranges.push_back({task->src.device, task->src.addr, task->src.addr + extent(false), false});
  }
  Runtime* rt = Runtime::instance();
  s.pending.insert(st.get());
  if (rt == nullptr) return;
  for (const TaskState::Range& r : st->ranges) {
    if (r.space != nullptr || r.end <= r.begin) continue;
    if (!rt->pinned().find(reinterpret_cast<const void*>(r.begin), r.end - r.begin)) continue;
    s.pins.push_back({st.get(), r.begin, r.end, r.write});
    st->pinned = true;
    reprotect(s, r.begin, r.end);
  }
}

void on_ready(Task* task) {
  TaskState* st = task->san.get();
  State& s = state();
  std::vector<Race> races;
  {
    std::lock_guard lock(s.mu);
    StreamState& ss = stream_state(s, task->stream);
    if (st->submit_clock) ss.clock.join(*st->submit_clock);
    st->agent = ss.agent;
    st->epoch = ss.clock.tick(ss.agent);
    st->clock = std::make_shared<const Clock>(ss.clock);
    st->ready = true;
    if (task->task_kind == TaskKind::HostCall && task->host_blocking) st->blocking_stream = task->stream->uid();
    st->site->seq = task->seq;
    s.pending.erase(st);
    for (const TaskState::Range& r : st->ranges) {
      Access a;
      a.begin = r.begin;
      a.end = r.end;
      a.agent = st->agent;
      a.epoch = st->epoch;
      a.write = r.write;
      a.site = st->site;
      check_insert(s, r.space, std::move(a), *st->clock, races);
    }
  }
  publish(races);
}

void on_retire(Task* task) {
  TaskState* st = task->san.get();
  State& s = state();
  std::lock_guard lock(s.mu);
  StreamState& ss = stream_state(s, task->stream);
  if (st->submit_clock) ss.clock.join(*st->submit_clock);
  switch (task->task_kind) {
    case TaskKind::EventRecord:
      if (task->record) task->record->san_clock = std::make_shared<const Clock>(ss.clock);
      if (task->ipc && task->ipc_n != 0) {
        auto& records = s.ipc_clocks[task->ipc->identity()];
        records[task->ipc_n] = ss.clock;
        if (records.size() > 64) records.erase(records.begin());  // waits are for recent records
      }
      break;
    case TaskKind::IpcWait:
      // A wait for record n orders after that record. An older record's clock, if n's was
      // dropped, orders less (a report rather than a hidden race); a newer one would order too much.
      if (auto it = s.ipc_clocks.find(task->ipc ? task->ipc->identity() : 0); it != s.ipc_clocks.end()) {
        auto r = it->second.upper_bound(task->ipc_n);
        if (r != it->second.begin()) ss.clock.join(std::prev(r)->second);
      }
      break;
    case TaskKind::EventWait:
      if (task->record && task->record->san_clock) ss.clock.join(*task->record->san_clock);
      break;
    case TaskKind::NotifyRecord:
      s.notify_clocks[task->notify.get()].join(ss.clock);
      break;
    case TaskKind::NotifyWait:
      if (auto it = s.notify_clocks.find(task->notify.get()); it != s.notify_clocks.end()) ss.clock.join(it->second);
      break;
    case TaskKind::ValueWrite:
      s.value_clocks[task->value_addr].join(ss.clock);
      break;
    case TaskKind::ValueWait:
      if (auto it = s.value_clocks.find(task->value_addr); it != s.value_clocks.end()) ss.clock.join(it->second);
      break;
    default:
      break;
  }
}

void on_dispatch(Task* task) {
  TaskState* st = task->san.get();
  if (!st->pinned) return;
  State& s = state();
  std::lock_guard lock(s.mu);
  for (PinUse& u : s.pins) {
    if (u.owner != st || u.active) continue;
    u.active = true;
    reprotect(s, u.begin, u.end);
  }
}

void on_complete(Task* task) {
  TaskState* st = task->san.get();
  if (!st->pinned) return;
  State& s = state();
  std::lock_guard lock(s.mu);
  drop_pins(s, st);
  st->pinned = false;
}

void task_destroyed(TaskState* st) {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.pending.erase(st);
  if (st->kernel_live) {
    st->kernel_live = false;
    if (auto it = s.live_kernels.find(st->free_seq); it != s.live_kernels.end()) s.live_kernels.erase(it);
    // Frees every live kernel was submitted after concern nobody any more.
    const uint64_t oldest = s.live_kernels.empty() ? UINT64_MAX : *s.live_kernels.begin();
    while (!s.freed_ranges.empty() && s.freed_ranges.front().seq <= oldest) s.freed_ranges.pop_front();
  }
  if (st->pinned) {
    drop_pins(s, st);
    st->pinned = false;
  }
}

// ---------------------------------------------------------------- accesses

void kernel_access(Task* task, const void* space, uint64_t addr, uint64_t bytes, bool write, bool mapped) {
  TaskState* st = task->san.get();
  if (st == nullptr || !st->ready || bytes == 0) return;
  State& s = state();
  std::vector<Race> races;
  {
    std::lock_guard lock(s.mu);
    const uint64_t end = addr + bytes;
    if (!s.freed_ranges.empty() && s.freed_ranges.back().seq > st->free_seq) {
      // Freed after this kernel was submitted: its pointer is to freed (maybe reused) memory.
      for (const FreedRange& f : s.freed_ranges) {
        // (An unmapped range may not resolve to its device: addresses alone decide.)
        if (f.seq <= st->free_seq || (mapped && f.space != space) || f.end <= addr || f.begin >= end) continue;
        if (std::find(f.exempt.begin(), f.exempt.end(), st->agent) != f.exempt.end()) continue;
        races.push_back({f.exempt.empty() ? Kind::FreeInUse : Kind::Reuse, st->site, f.site,
                         f.exempt.empty() ? nullptr : f.site, write, true, space, addr, end, f.begin, f.end});
        break;
      }
    }
    if (mapped) {
      Access a;
      a.begin = addr;
      a.end = end;
      a.agent = st->agent;
      a.epoch = st->epoch;
      a.write = write;
      a.site = st->site;
      check_insert(s, space, std::move(a), *st->clock, races);
    }
  }
  publish(races);
}

namespace {
// The calling thread's (or host call's) clock and position, ticking past any snapshot the host
// gave out (under State::mu).
struct HostPosition {
  uint32_t agent = 0, epoch = 0;
  std::shared_ptr<const Clock> vc;
};
HostPosition host_position(State& s) {
  if (TaskState* ht = t_host_task) return {ht->agent, ht->epoch, ht->clock};
  HostState& h = host_state(s);
  if (h.snap_given) {
    h.clock.tick(h.agent);
    h.snap.reset();
    h.snap_given = false;
  }
  if (!h.snap) h.snap = std::make_shared<const Clock>(h.clock);
  return {h.agent, h.clock.get(h.agent), h.snap};  // the snap is not "given": no task carries it
}

void host_join(State& s, const Clock& c) {
  if (TaskState* ht = t_host_task) {  // a host call's clock is its task's
    // A blocking one holds its stream: what it waited for (a condition's branch, run by
    // GraphTable::run_sync) happens before the stream's next task.
    if (ht->blocking_stream != 0) {
      if (auto it = s.streams.find(ht->blocking_stream); it != s.streams.end()) it->second.clock.join(c);
    }
    return;
  }
  HostState& h = host_state(s);
  h.clock.join(c);
  h.snap.reset();
}

// A host access (host_access, freed): the call site, then `body` under the mutex with the calling
// thread's position; races found are published after the mutex is released.
template <class Body>
void as_host(const char* what, Body&& body) {
  std::shared_ptr<Site> site = host_site(what);
  State& s = state();
  std::vector<Race> races;
  {
    std::lock_guard lock(s.mu);
    body(s, site, host_position(s), races);
  }
  publish(races);
}
}  // namespace

void host_access(const char* what, const HostRange* ranges, int count) {
  as_host(what, [&](State& s, const std::shared_ptr<Site>& site, const HostPosition& pos, std::vector<Race>& races) {
    for (int i = 0; i < count; ++i) {
      Access a;
      a.begin = ranges[i].addr;
      a.end = ranges[i].addr + ranges[i].bytes;
      a.agent = pos.agent;
      a.epoch = pos.epoch;
      a.write = ranges[i].write;
      a.site = site;
      check_insert(s, ranges[i].space, std::move(a), *pos.vc, races);
    }
  });
}

void freed(const char* what, const void* space, uint64_t addr, uint64_t bytes, const Stream* stream) {
  const uint64_t end = addr + bytes;
  as_host(what, [&](State& s, const std::shared_ptr<Site>& site, const HostPosition& pos, std::vector<Race>& races) {
    std::set<uint32_t> recorded;
    if (auto it = s.recorded_streams.find({space, addr}); it != s.recorded_streams.end()) {
      recorded = std::move(it->second);
      s.recorded_streams.erase(it);
    }
    uint32_t free_agent = 0;
    if (stream != nullptr) {
      free_agent = stream_state(s, stream).agent;
      site->agent_name = stream_name(stream);
      site->on_stream = true;
      site->stream_id = stream->id();
    }
    if (!s.live_kernels.empty()) {
      // Kernels queued now may map the block when they run.
      FreedRange f{space, addr, end, ++s.free_seq, {}, site};
      if (stream != nullptr) {
        f.exempt.assign(recorded.begin(), recorded.end());
        f.exempt.push_back(free_agent);
      }
      s.freed_ranges.push_back(std::move(f));
    }
    // Queued copies and fills that have not started: nothing can be ordered after them yet.
    if (stream == nullptr) {
      for (TaskState* p : s.pending) {
        for (const TaskState::Range& r : p->ranges) {
          if (r.space != space || r.end <= addr || r.begin >= end) continue;
          races.push_back({Kind::FreeInUse, p->site, site, nullptr, r.write, true, space, r.begin, r.end, addr, end});
          break;
        }
      }
    }
    Space& sp = s.spaces[space];
    auto it = sp.map.lower_bound(addr > sp.max_len ? addr - sp.max_len : 0);
    while (it != sp.map.end() && it->first < end) {
      Access& e = it->second;
      if (e.end <= addr) {
        ++it;
        continue;
      }
      if (stream == nullptr) {
        const bool ordered = (!e.site->on_stream && !site->on_stream) ||
                             (e.agent == pos.agent ? e.epoch <= pos.epoch : pos.vc->get(e.agent) >= e.epoch);
        if (!ordered) {
          races.push_back({Kind::FreeInUse, e.site, site, nullptr, e.write, true, space, e.begin, e.end, addr, end});
        }
        it = sp.map.erase(it);
      } else if (e.agent == free_agent || recorded.count(e.agent) != 0) {
        it = sp.map.erase(it);  // the allocator waits for these streams before reuse
      } else {
        e.freed = true;
        e.free_site = site;
        ++it;
      }
    }
  });
}

void record_stream(const void* space, uint64_t addr, const Stream* stream) {
  State& s = state();
  std::lock_guard lock(s.mu);
  s.recorded_streams[{space, addr}].insert(stream_state(s, stream).agent);
}

// ---------------------------------------------------------------- ordering through memory

void sync_release(Task* task, const void* object, uint64_t value) {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (task != nullptr) {
    const TaskState* st = task->san.get();
    if (st == nullptr || !st->ready) return;
    s.sync_clocks[object][value].join(*st->clock);
  } else if (t_host_task != nullptr) {
    if (t_host_task->clock) s.sync_clocks[object][value].join(*t_host_task->clock);
  } else {
    HostState& h = host_state(s);
    s.sync_clocks[object][value].join(h.clock);
    // Later host accesses are not covered by what was published.
    h.clock.tick(h.agent);
    h.snap.reset();
    h.snap_given = false;
  }
}

void sync_acquire(Task* task, const void* object, uint64_t value) {
  State& s = state();
  std::lock_guard lock(s.mu);
  auto it = s.sync_clocks.find(object);
  if (it == s.sync_clocks.end()) return;
  Clock c;
  auto& published = it->second;
  auto last = published.upper_bound(value);
  for (auto v = published.begin(); v != last; ++v) c.join(v->second);
  published.erase(published.begin(), last);  // one acquirer per object: consumed
  if (published.empty()) s.sync_clocks.erase(it);
  if (task != nullptr) {
    // The block's stream: its later tasks join the stream's clock when they reach its head.
    if (task->san) stream_state(s, task->stream).clock.join(c);
  } else {
    host_join(s, c);
  }
}

// ---------------------------------------------------------------- host synchronisation

void synced_stream(const Stream& stream) {
  State& s = state();
  std::lock_guard lock(s.mu);
  Clock c = stream_state(s, &stream).clock;
  host_join(s, c);
}

void synced_device(int32_t device_id) {
  State& s = state();
  std::lock_guard lock(s.mu);
  Clock c;
  for (auto& [uid, ss] : s.streams) {
    if (ss.device == device_id) c.join(ss.clock);
  }
  host_join(s, c);
}

void synced_record(const EventRecord& record) {
  State& s = state();
  std::lock_guard lock(s.mu);
  if (record.san_clock) host_join(s, *record.san_clock);
}

HostCallScope::HostCallScope(const std::shared_ptr<TaskState>& st) : saved_(t_host_task) {
  if (st && st->ready) t_host_task = st.get();
}
HostCallScope::~HostCallScope() {
  t_host_task = saved_;
}

RuntimeAccessScope::RuntimeAccessScope() {
  ++t_runtime_access;
}
RuntimeAccessScope::~RuntimeAccessScope() {
  --t_runtime_access;
}

}  // namespace arun::san

namespace arun::rt {

uint32_t sanitizer_report_count() {
  san::State& s = san::state();
  std::lock_guard lock(s.mu);
  return static_cast<uint32_t>(s.reports.size());
}

bool sanitizer_report(uint32_t index, std::string* text, uint64_t* occurrences) {
  san::State& s = san::state();
  std::lock_guard lock(s.mu);
  if (index >= s.reports.size()) return false;
  if (text != nullptr) *text = s.reports[index].text;
  if (occurrences != nullptr) *occurrences = s.reports[index].count;
  return true;
}

}  // namespace arun::rt

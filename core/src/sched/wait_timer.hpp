// WaitTimer: deadlines of stream-side event waits that carry a timeout
// (aclrtStreamWaitEventWithTimeout / aclrtStreamWaitEventWithFlag). One thread per scheduler,
// started by the first timed wait that blocks; at a deadline it calls `fire` with the stream, its
// uid and the wait's position, and the scheduler decides whether that wait is still blocked.
//
// arm() may be called with the scheduler's mutex held; `fire` runs with no WaitTimer lock held, so
// it may take that mutex. The destructor stops and joins the thread (a running `fire` finishes
// first), so a WaitTimer declared last in its owner never calls into a half-destroyed owner.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <thread>
#include <vector>

namespace arun {

class Stream;

class WaitTimer {
 public:
  using Fire = std::function<void(Stream* stream, uint64_t stream_uid, uint64_t seq)>;

  explicit WaitTimer(Fire fire) : fire_(std::move(fire)) {}
  ~WaitTimer();
  WaitTimer(const WaitTimer&) = delete;
  WaitTimer& operator=(const WaitTimer&) = delete;

  // Calls fire(stream, uid, seq) at steady-clock time `deadline_ns` (or soon after).
  void arm(uint64_t deadline_ns, Stream* stream, uint64_t stream_uid, uint64_t seq);

  static uint64_t now_ns();

 private:
  struct Entry {
    uint64_t deadline_ns;
    Stream* stream;
    uint64_t uid;
    uint64_t seq;
    bool operator>(const Entry& o) const { return deadline_ns > o.deadline_ns; }
  };
  void run();

  Fire fire_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> due_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace arun

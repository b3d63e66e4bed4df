// The floor of any hand-off between two threads on this machine: one cache line bounced between
// two threads (issue 16). Every runtime figure that crosses threads (a round trip, a dependency
// between streams) pays at least one such round trip, so arun_sched_bench reports its figures as
// multiples of it.
#pragma once

#include <vector>

namespace sched_bench {

struct PingPongFloor {
  std::vector<double> spin_ns;   // one 32-bit atomic, both threads spin: ns per round trip, per repeat
  std::vector<double> futex_ns;  // the same, each side parks in a raw futex wait: a wake each way
};

// Measures `repeats` times: `trips` round trips with spinning, then `trips / 40` with futex waits;
// each repeat gives the median over chunks of 64 round trips. The spinning threads are pinned to
// two different CPUs when the process may use two; the parking ones are not.
void measure_pingpong(PingPongFloor* out, int repeats, int trips);

double median_of(std::vector<double> v);

}  // namespace sched_bench

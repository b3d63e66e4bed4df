// A training-step-like multi-stream program, the workload of the allocator trace benchmark: a small
// transformer's forward and backward passes on a compute stream, input batches arriving on a copy
// stream, gradient buckets reduced and applied on a third stream, with variable sequence lengths
// from step to step (so block sizes change as in real training with dynamic shapes).
#pragma once

#include <cstdint>

namespace training {

struct Shape {
  int layers = 4;
  int batch = 16;
  int hidden = 256;
  int ffn = 1024;
  int heads = 4;
  int vocab = 8000;
  int max_seq = 128;
};

// Runs `steps` training steps on the current device (the caller has set it). Returns 0, or the ACL
// error of the first call that failed (after printing it).
int run(int steps, uint32_t seed, const Shape& shape = Shape{});

}  // namespace training

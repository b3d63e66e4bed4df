#include "training_step.hpp"

#include <cstdio>
#include <random>
#include <vector>

#include "acl/acl.h"
#include "arun/arun_ext.h"

namespace training {
namespace {

#define STEP_CHECK(expr)                                                                 \
  do {                                                                                   \
    aclError rc_ = (expr);                                                               \
    if (rc_ != ACL_SUCCESS) {                                                            \
      std::fprintf(stderr, "training step: %s failed: %d %s\n", #expr, rc_, aclGetRecentErrMsg()); \
      return rc_;                                                                        \
    }                                                                                    \
  } while (0)

// Stand-in for an operator writing its output: a memset of the whole tensor on its stream (real
// memory traffic, so the streams are busy as long as the data is large).
aclError write(void* p, uint64_t bytes, aclrtStream s) { return aclrtMemsetAsync(p, bytes, 0, bytes, s); }

struct Programme {
  const Shape& sh;
  aclrtStream copy = nullptr, compute = nullptr, reduce = nullptr;
  aclrtEvent input_ready = nullptr, grads_ready = nullptr;
  std::vector<void*> params;  // per layer: qkv, out, ffn1, ffn2 weights (and Adam's two moments)
  std::vector<uint64_t> param_bytes;

  aclError alloc(void** p, uint64_t bytes, aclrtStream s) {
    aclError rc = arunMallocAsync(p, bytes, ACL_MEM_MALLOC_HUGE_FIRST, s);
    return rc != ACL_SUCCESS ? rc : write(*p, bytes, s);
  }

  int setup() {
    STEP_CHECK(aclrtCreateStream(&copy));
    STEP_CHECK(aclrtCreateStream(&compute));
    STEP_CHECK(aclrtCreateStream(&reduce));
    STEP_CHECK(aclrtCreateEvent(&input_ready));
    STEP_CHECK(aclrtCreateEvent(&grads_ready));
    const uint64_t h = uint64_t(sh.hidden), f = uint64_t(sh.ffn);
    std::vector<uint64_t> sizes = {uint64_t(sh.vocab) * h * 4};  // embedding
    for (int l = 0; l < sh.layers; ++l) {
      for (uint64_t b : {h * 3 * h * 4, h * h * 4, h * f * 4, f * h * 4}) sizes.push_back(b);
    }
    for (uint64_t b : sizes) {
      for (int copy_of = 0; copy_of < 3; ++copy_of) {  // the weight, Adam's m and v
        void* p = nullptr;
        STEP_CHECK(aclrtMalloc(&p, b, ACL_MEM_MALLOC_HUGE_FIRST));
        STEP_CHECK(write(p, b, compute));
        params.push_back(p);
        param_bytes.push_back(b);
      }
    }
    return 0;
  }

  int step(int seq) {
    const uint64_t tokens = uint64_t(sh.batch) * uint64_t(seq);
    const uint64_t h = uint64_t(sh.hidden), f = uint64_t(sh.ffn);
    const uint64_t act = tokens * h * 4, wide = tokens * f * 4;
    const uint64_t scores = uint64_t(sh.batch) * uint64_t(sh.heads) * uint64_t(seq) * uint64_t(seq) * 4;
    // Input ids and labels arrive on the copy stream; compute uses them after an event.
    void *ids = nullptr, *labels = nullptr;
    STEP_CHECK(alloc(&ids, tokens * 4, copy));
    STEP_CHECK(alloc(&labels, tokens * 4, copy));
    STEP_CHECK(aclrtRecordEvent(input_ready, copy));
    STEP_CHECK(aclrtStreamWaitEvent(compute, input_ready));
    STEP_CHECK(arunMemRecordStream(ids, compute));
    STEP_CHECK(arunMemRecordStream(labels, compute));

    // Forward: every layer keeps its activations for the backward pass.
    std::vector<std::vector<void*>> saved(size_t(sh.layers));
    void* x = nullptr;
    STEP_CHECK(alloc(&x, act, compute));  // embedding lookup
    STEP_CHECK(arunFreeAsync(ids, copy));  // the copy stream is done with it; compute's use is recorded
    for (int l = 0; l < sh.layers; ++l) {
      auto& keep = saved[size_t(l)];
      for (uint64_t b : {act * 3, scores, scores, act, act, act, wide, wide, act, act}) {
        void* p = nullptr;
        STEP_CHECK(alloc(&p, b, compute));
        keep.push_back(p);
      }
      for (uint64_t b : {tokens * 4, tokens * 4}) {  // layer-norm means and variances
        void* p = nullptr;
        STEP_CHECK(alloc(&p, b, compute));
        keep.push_back(p);
      }
      void* workspace = nullptr;  // an operator's scratch, gone when it finishes
      STEP_CHECK(alloc(&workspace, wide, compute));
      STEP_CHECK(arunFreeAsync(workspace, compute));
    }
    void *logits = nullptr, *loss = nullptr, *grad = nullptr;
    STEP_CHECK(alloc(&logits, tokens * uint64_t(sh.vocab) * 4, compute));
    STEP_CHECK(alloc(&loss, 4, compute));
    STEP_CHECK(alloc(&grad, tokens * uint64_t(sh.vocab) * 4, compute));
    STEP_CHECK(arunFreeAsync(logits, compute));
    STEP_CHECK(arunFreeAsync(labels, copy));
    void* grad_x = nullptr;
    STEP_CHECK(alloc(&grad_x, act, compute));
    STEP_CHECK(arunFreeAsync(grad, compute));

    // Backward, last layer first: weight gradients go to the reduce stream in buckets of two layers.
    std::vector<void*> bucket_grads;
    uint64_t bucket_bytes = 0;
    for (int l = sh.layers - 1; l >= 0; --l) {
      for (uint64_t b : {h * 3 * h * 4, h * h * 4, h * f * 4, f * h * 4}) {
        void* g = nullptr;
        STEP_CHECK(alloc(&g, b, compute));
        bucket_grads.push_back(g);
        bucket_bytes += b;
      }
      void *gw = nullptr, *gn = nullptr;  // gradients of the wide and narrow activations
      STEP_CHECK(alloc(&gw, wide, compute));
      STEP_CHECK(alloc(&gn, act, compute));
      STEP_CHECK(arunFreeAsync(gw, compute));
      STEP_CHECK(arunFreeAsync(grad_x, compute));
      grad_x = gn;
      for (void* p : saved[size_t(l)]) STEP_CHECK(arunFreeAsync(p, compute));
      if (l % 2 == 0) {
        // All-reduce stand-in: the reduce stream copies the gradients into one bucket, then the
        // optimizer updates the weights from it.
        STEP_CHECK(aclrtRecordEvent(grads_ready, compute));
        STEP_CHECK(aclrtStreamWaitEvent(reduce, grads_ready));
        void* bucket = nullptr;
        STEP_CHECK(alloc(&bucket, bucket_bytes, reduce));
        for (void* g : bucket_grads) {
          STEP_CHECK(arunMemRecordStream(g, reduce));
          STEP_CHECK(arunFreeAsync(g, compute));
        }
        for (size_t i = 0; i < params.size(); i += 7) STEP_CHECK(write(params[i], param_bytes[i] / 8, reduce));
        STEP_CHECK(arunFreeAsync(bucket, reduce));
        bucket_grads.clear();
        bucket_bytes = 0;
      }
    }
    STEP_CHECK(arunFreeAsync(grad_x, compute));
    STEP_CHECK(arunFreeAsync(x, compute));
    // The host reads the loss: the step ends with a synchronisation, as loss.item() does.
    STEP_CHECK(aclrtSynchronizeStream(compute));
    STEP_CHECK(arunFreeAsync(loss, compute));
    return 0;
  }

  int teardown() {
    STEP_CHECK(aclrtSynchronizeDevice());
    for (void* p : params) STEP_CHECK(aclrtFree(p));
    STEP_CHECK(aclrtDestroyEvent(input_ready));
    STEP_CHECK(aclrtDestroyEvent(grads_ready));
    for (aclrtStream s : {copy, compute, reduce}) STEP_CHECK(aclrtDestroyStream(s));
    return 0;
  }
};

}  // namespace

int run(int steps, uint32_t seed, const Shape& shape) {
  Programme p{shape, nullptr, nullptr, nullptr, nullptr, nullptr, {}, {}};
  if (int rc = p.setup(); rc != 0) return rc;
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> seq(shape.max_seq / 2, shape.max_seq);
  for (int i = 0; i < steps; ++i) {
    if (int rc = p.step(seq(rng) / 8 * 8); rc != 0) return rc;
  }
  return p.teardown();
}

}  // namespace training

// A loaded model (spec 2.13): the imported graph and its plan, the device memory they need (weights
// uploaded once; one workspace for every intermediate), the model's own streams and events, and
// one prepared ops::OpCall per node. An execution enqueues every node back to back through the
// operator library's launch path (ops::execute), with no host synchronisation between nodes.
// Device resources come from the core's front door (arun/runtime/); the runtime owns loaded models
// in its model table (arun/runtime/models.hpp), which abandons them at aclFinalize.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "arun/model/graph.hpp"
#include "arun/runtime/models.hpp"

namespace arun::model {

// Most streams a model's independent branches use (ARUN_MODEL_STREAMS, 1..16; default 4; 1 = serial).
int max_streams();

class LoadedModel final : public rt::ModelObject {
 public:
  // Caller-owned memory (aclmdlLoadFrom*WithMem); a NULL pointer lets the runtime allocate that part.
  struct Memory {
    void* work = nullptr;
    size_t work_size = 0;
    void* weight = nullptr;
    size_t weight_size = 0;
  };

  // Imports, plans and places the model on the current context's device, and adds it to the
  // runtime's model table as *id.
  // `name` (aclmdlLoadFromFile*: the file's stem) names the model in profiling records; empty: the
  // ONNX graph's name, else "model_<id>".
  static Status load(const void* image, size_t size, const Memory& mem, uint32_t* id, const std::string& name = {});
  // The loaded model `id` (ACL_ERROR_GE_EXEC_MODEL_ID_INVALID if none).
  static Status find(uint32_t id, std::shared_ptr<LoadedModel>* out);
  // Removes `id` from the table and drops it: the destructor waits for its last execution.
  static Status unload(uint32_t id);
  // Waits for the last execution, then releases what the runtime allocated.
  ~LoadedModel() override;
  LoadedModel(const LoadedModel&) = delete;
  LoadedModel& operator=(const LoadedModel&) = delete;

  // The runtime is going away: the destructor must not touch its handles.
  void abandon() override;
  int32_t device() const override { return device_; }

  const model::Graph& graph() const { return graph_; }
  const model::Plan& plan() const { return plan_; }

  // Enqueues one inference on `stream` (nullptr: the default stream). The buffers are device
  // addresses of the graph inputs / outputs, in order, already checked for count and size.
  // Executions from several threads or streams are serialised on the device through an event.
  Status run(const std::vector<void*>& inputs, const std::vector<void*>& outputs, aclrtStream stream);

  // One execution as aclmdlExecute (sync) / aclmdlExecuteAsync make it: first allocates the graph
  // outputs listed in `to_alloc` (their entries of `outputs` receive the device addresses; freed
  // again if the execution fails), then runs, then (sync) waits for `stream`.
  Status execute(const std::vector<void*>& inputs, std::vector<void*>& outputs, const std::vector<int>& to_alloc,
                 aclrtStream stream, bool sync);

 private:
  LoadedModel() = default;
  Status place(const Memory& mem);
  Status enqueue(aclrtStream stream);

  // Where a node operand bound to a graph input / output sits in the prepared calls.
  struct Binding {
    int node;
    bool is_output;  // in calls_[node].outputs (else .inputs)
    int slot;
    int io;  // graph input / output index
    bool graph_output;
  };

  model::Graph graph_;
  model::Plan plan_;
  void* work_ = nullptr;
  void* weight_ = nullptr;
  bool owns_work_ = false, owns_weight_ = false;
  std::vector<aclrtStream> streams_;      // [0] unused (the caller's), then the model's own
  std::vector<aclrtEvent> node_events_;   // per node, where the plan records one
  std::vector<aclrtEvent> stream_tails_;  // per model stream: joins it after a failed enqueue
  aclrtEvent start_ = nullptr, done_ = nullptr;
  std::vector<ops::OpCall> calls_;
  std::vector<ops::OpTrace> traces_;  // per node: its profiling identity (calls_[n].trace)
  std::vector<Binding> bindings_;

  std::mutex mutex_;  // one enqueue at a time; guards the fields below and the calls' pointers
  bool ran_ = false;
  uint32_t executions_ = 0;  // enqueued so far: msprof's Infer ID of the next is executions_ + 1
  uint32_t id_ = 0;          // in the runtime's model table (aclprofModelSubscribe)
  int32_t device_ = 0;       // loaded on
  bool abandoned_ = false;
  aclrtStream last_stream_ = nullptr;
};

}  // namespace arun::model

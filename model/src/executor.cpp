// The model executor: places an imported graph on the device and enqueues its nodes.
//
// Device resources are obtained through the core's front door (rt::device_malloc, rt::create_stream,
// rt::create_event ...), the calls behind aclrtMalloc, aclrtCreateStream, aclrtCreateEvent: the
// executor uses the runtime as an application does, and every node goes through ops::execute
// exactly like aclopExecuteV2.
#include "arun/model/executor.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>

#include "arun/runtime/aclprof.hpp"
#include "arun/runtime/devices.hpp"
#include "arun/runtime/launch.hpp"
#include "arun/runtime/memory.hpp"
#include "arun/runtime/streams.hpp"
#include "arun/runtime/task_observer.hpp"

namespace arun::model {

namespace {

Status check(const Status& st, const std::string& what) {
  if (st.ok()) return st;
  return Status(st.code(), what + " failed (code " + std::to_string(st.value()) + ")");
}

// The program's call site of an allocation, as aclrtMalloc records it for the leak report.
[[gnu::noinline]] const void* call_site() {
  return __builtin_return_address(0);
}

// The model's events are only recorded, waited for and synchronised.
constexpr uint32_t kEventFlags = ACL_EVENT_SYNC;
constexpr int32_t kForever = -1;

}  // namespace

int max_streams() {
  static const int n = [] {
    const char* env = std::getenv("ARUN_MODEL_STREAMS");
    const int v = env != nullptr ? std::atoi(env) : 4;
    return std::clamp(v, 1, 16);
  }();
  return n;
}

Status LoadedModel::load(const void* image, size_t size, const Memory& mem, uint32_t* id, const std::string& name) {
  // The current context's device (its default stream's) runs the model.
  rt::LaunchTarget target;
  ARUN_RETURN_IF_ERROR(rt::launch_target(nullptr, &target));
  std::shared_ptr<LoadedModel> m(new LoadedModel());
  ARUN_RETURN_IF_ERROR(model::import_onnx(image, size, &m->graph_));
  m->plan_ = model::make_plan(m->graph_, max_streams());
  ARUN_RETURN_IF_ERROR(m->place(mem));

  // One prepared call per node; graph inputs / outputs are bound per execution.
  const uint32_t cores = target.cores;
  const uint32_t cpus = target.host_cpus;
  auto* work = static_cast<uint8_t*>(m->work_);
  auto* weight = static_cast<uint8_t*>(m->weight_);
  m->calls_.resize(m->graph_.nodes.size());
  for (size_t n = 0; n < m->graph_.nodes.size(); ++n) {
    const model::Node& node = m->graph_.nodes[n];
    ops::OpCall& call = m->calls_[n];
    call.op = node.op;
    call.attrs = &node.attrs;
    call.cores = cores;
    call.host_cpus = cpus;
    auto operand = [&](int t, bool is_output, int slot) {
      ops::Tensor x;
      if (t < 0) return x;  // omitted optional input
      const model::TensorInfo& ti = m->graph_.tensors[t];
      x.dtype = ti.dtype;
      x.shape = ti.shape;
      x.bytes = ti.bytes;
      switch (ti.kind) {
        case model::TensorKind::weight:
          x.data = weight + m->plan_.offset[t];
          break;
        case model::TensorKind::intermediate:
          x.data = work + m->plan_.offset[t];
          break;
        case model::TensorKind::input:
        case model::TensorKind::output:
          m->bindings_.push_back(
              {static_cast<int>(n), is_output, slot, ti.io_index, ti.kind == model::TensorKind::output});
          break;
      }
      return x;
    };
    for (size_t i = 0; i < node.inputs.size(); ++i) call.inputs.push_back(operand(node.inputs[i], false, int(i)));
    for (size_t i = 0; i < node.outputs.size(); ++i) call.outputs.push_back(operand(node.outputs[i], true, int(i)));
  }

  // The model's own streams and the events that join them.
  m->streams_.assign(m->plan_.streams, nullptr);
  m->stream_tails_.assign(m->plan_.streams, nullptr);
  for (int s = 1; s < m->plan_.streams; ++s) {
    ARUN_RETURN_IF_ERROR(check(rt::create_stream(0, 0, &m->streams_[s]), "creating a model stream"));
    ARUN_RETURN_IF_ERROR(check(rt::create_event(kEventFlags, &m->stream_tails_[s]), "creating an event"));
  }
  m->node_events_.assign(m->graph_.nodes.size(), nullptr);
  for (size_t n = 0; n < m->graph_.nodes.size(); ++n) {
    if (m->plan_.record[n]) {
      ARUN_RETURN_IF_ERROR(check(rt::create_event(kEventFlags, &m->node_events_[n]), "creating an event"));
    }
  }
  ARUN_RETURN_IF_ERROR(check(rt::create_event(kEventFlags, &m->start_), "creating an event"));
  ARUN_RETURN_IF_ERROR(check(rt::create_event(kEventFlags, &m->done_), "creating an event"));
  (void)rt::current_device(&m->device_);
  LoadedModel* raw = m.get();
  ARUN_RETURN_IF_ERROR(rt::add_model(std::move(m), id));
  raw->id_ = *id;
  // Profiling identity of each node (msprof's Op Name, Model ID, Model Name); the calls point at
  // it only now, so a moved vector can leave no dangling pointer.
  const std::string model_name = !name.empty()               ? name
                                 : !raw->graph_.name.empty() ? raw->graph_.name
                                                             : "model_" + std::to_string(*id);
  raw->traces_.resize(raw->calls_.size());
  for (size_t n = 0; n < raw->calls_.size(); ++n) {
    raw->traces_[n].node_name = raw->graph_.nodes[n].name;
    raw->traces_[n].model_name = model_name;
    raw->traces_[n].model_id = *id;
    raw->calls_[n].trace = &raw->traces_[n];
  }
  return Status::Ok();
}

Status LoadedModel::find(uint32_t id, std::shared_ptr<LoadedModel>* out) {
  std::shared_ptr<rt::ModelObject> m;
  ARUN_RETURN_IF_ERROR(rt::find_model(id, &m));
  *out = std::static_pointer_cast<LoadedModel>(std::move(m));  // the table holds only LoadedModels
  return Status::Ok();
}

Status LoadedModel::unload(uint32_t id) {
  std::shared_ptr<rt::ModelObject> m;
  ARUN_RETURN_IF_ERROR(rt::remove_model(id, &m));
  m.reset();  // outside the table's lock: waits for the model's last execution
  return Status::Ok();
}

Status LoadedModel::place(const Memory& mem) {
  const auto size_error = [](const char* what, size_t given, size_t needed) {
    return Status(static_cast<Errc>(ACL_ERROR_GE_EXEC_MODEL_DATA_SIZE_INVALID),
                  std::string(what) + " memory of " + std::to_string(given) + " bytes is too small: the model needs " +
                      std::to_string(needed) + " (see aclmdlQuerySize)");
  };
  if (mem.work != nullptr) {
    if (mem.work_size < plan_.work_size) return size_error("work", mem.work_size, plan_.work_size);
    work_ = mem.work;
  } else if (plan_.work_size > 0) {
    ARUN_RETURN_IF_ERROR(check(rt::device_malloc(&work_, plan_.work_size, ACL_MEM_MALLOC_HUGE_FIRST, call_site()),
                               "allocating the model workspace"));
    owns_work_ = true;
  }
  if (mem.weight != nullptr) {
    if (mem.weight_size < plan_.weight_size) return size_error("weight", mem.weight_size, plan_.weight_size);
    weight_ = mem.weight;
  } else if (plan_.weight_size > 0) {
    ARUN_RETURN_IF_ERROR(check(rt::device_malloc(&weight_, plan_.weight_size, ACL_MEM_MALLOC_HUGE_FIRST, call_site()),
                               "allocating the model weights"));
    owns_weight_ = true;
  }
  // Weights: staged on the host in their planned layout and copied in one transfer.
  if (plan_.weight_size > 0) {
    std::vector<uint8_t> staging(plan_.weight_size, 0);
    for (size_t t = 0; t < graph_.tensors.size(); ++t) {
      model::TensorInfo& ti = graph_.tensors[t];
      if (ti.kind != model::TensorKind::weight) continue;
      if (!ti.data.empty()) std::memcpy(staging.data() + plan_.offset[t], ti.data.data(), ti.data.size());
      std::vector<uint8_t>().swap(ti.data);  // on the device now
    }
    ARUN_RETURN_IF_ERROR(
        check(rt::memcpy_sync(weight_, plan_.weight_size, staging.data(), staging.size(), ACL_MEMCPY_HOST_TO_DEVICE),
              "copying the model weights to the device"));
  }
  return Status::Ok();
}

void LoadedModel::abandon() {
  std::lock_guard<std::mutex> lock(mutex_);
  abandoned_ = true;
}

LoadedModel::~LoadedModel() {
  if (abandoned_) return;
  // The last execution may still be queued: its kernels use the workspace and the weights.
  if (ran_ && done_ != nullptr) (void)rt::synchronize_event(done_, kForever);
  for (aclrtEvent e : node_events_) {
    if (e != nullptr) (void)rt::destroy_event(e);
  }
  for (aclrtEvent e : stream_tails_) {
    if (e != nullptr) (void)rt::destroy_event(e);
  }
  if (start_ != nullptr) (void)rt::destroy_event(start_);
  if (done_ != nullptr) (void)rt::destroy_event(done_);
  for (aclrtStream s : streams_) {
    if (s != nullptr) (void)rt::destroy_stream(s, false);
  }
  if (owns_work_) (void)rt::device_free(work_);
  if (owns_weight_) (void)rt::device_free(weight_);
}

Status LoadedModel::run(const std::vector<void*>& inputs, const std::vector<void*>& outputs, aclrtStream stream) {
  std::lock_guard<std::mutex> lock(mutex_);
  // The workspace is shared by all executions: one issued on another stream waits for the last.
  if (ran_ && stream != last_stream_) {
    ARUN_RETURN_IF_ERROR(check(rt::stream_wait_event(stream, done_), "waiting for the previous execution"));
  }
  for (const Binding& b : bindings_) {
    ops::Tensor& t = b.is_output ? calls_[b.node].outputs[b.slot] : calls_[b.node].inputs[b.slot];
    t.data = b.graph_output ? outputs[b.io] : inputs[b.io];
  }
  Status st = enqueue(stream);
  if (!st.ok()) {
    // Part of the execution may be queued: join every model stream into the caller's before the
    // done event, so that the next execution still waits for whatever uses the workspace.
    for (int s = 1; s < plan_.streams; ++s) {
      if (rt::record_event(stream_tails_[s], streams_[s]).ok()) {
        (void)rt::stream_wait_event(stream, stream_tails_[s]);
      }
    }
  }
  if (rt::record_event(done_, stream).ok()) {
    ran_ = true;
    last_stream_ = stream;
  } else if (st.ok()) {
    st = Status(Errc::rt_internal_error, "recording the model's done event failed");
  }
  return st;
}

Status LoadedModel::enqueue(aclrtStream stream) {
  const std::shared_ptr<rt::ModelOpObserver> observer = rt::model_op_observer(id_);
  const uint32_t infer_id = ++executions_;  // under mutex_ (run); a failed execution counts too
  if (plan_.streams > 1) {
    ARUN_RETURN_IF_ERROR(check(rt::record_event(start_, stream), "recording the start event"));
    for (int s = 1; s < plan_.streams; ++s) {
      ARUN_RETURN_IF_ERROR(check(rt::stream_wait_event(streams_[s], start_), "joining a model stream"));
    }
  }
  for (size_t n = 0; n < calls_.size(); ++n) {
    const int s = plan_.stream_of[n];
    aclrtStream on = s == 0 ? stream : streams_[s];
    for (int p : plan_.waits[n]) {
      ARUN_RETURN_IF_ERROR(
          check(rt::stream_wait_event(on, node_events_[p]), "waiting for node " + graph_.nodes[p].name));
    }
    ops::OpCall& call = calls_[n];
    call.stream = on;
    traces_[n].infer_id = infer_id;
    // Under aclprofModelSubscribe, the node's tasks report to the subscription as one operator.
    uint64_t cookie = 0;
    if (observer) cookie = observer->begin_op(graph_.nodes[n].op, graph_.nodes[n].name);
    Status st;
    {
      rt::TaskObserverScope scope(observer.get(), cookie);
      st = ops::execute(call);
    }
    if (observer) observer->end_op(cookie);
    if (!st.ok()) {
      const model::Node& node = graph_.nodes[n];
      return Status(st.code(), "node '" + node.name + "' (" + node.op + "): " + st.message());
    }
    if (plan_.record[n]) {
      ARUN_RETURN_IF_ERROR(
          check(rt::record_event(node_events_[n], on), "recording after node " + graph_.nodes[n].name));
    }
  }
  for (int s = 1; s < plan_.streams; ++s) {
    if (plan_.tails[s] >= 0) {
      ARUN_RETURN_IF_ERROR(
          check(rt::stream_wait_event(stream, node_events_[plan_.tails[s]]), "joining a model stream"));
    }
  }
  return Status::Ok();
}

Status LoadedModel::execute(const std::vector<void*>& inputs, std::vector<void*>& outputs,
                            const std::vector<int>& to_alloc, aclrtStream stream, bool sync) {
  // (NULL, 0) outputs of aclmdlExecute: allocated here, handed to the caller through the buffer.
  for (int i : to_alloc) {
    const size_t bytes = std::max<size_t>(graph_.tensors[graph_.outputs[i]].bytes, 1);
    Status st = rt::device_malloc(&outputs[i], bytes, ACL_MEM_MALLOC_HUGE_FIRST, call_site());
    if (!st.ok()) {
      for (int j : to_alloc) {
        if (j == i) break;
        (void)rt::device_free(outputs[j]);
      }
      return Status(st.code(), "allocating output " + std::to_string(i) + " failed");
    }
  }
  Status st = run(inputs, outputs, stream);
  if (st.ok() && sync) {
    const Status synced = rt::synchronize_stream(stream, kForever);
    if (!synced.ok()) {
      // Worded as the failure aclrtSynchronizeStream reports.
      st = Status(synced.code(), "model execution failed: aclrtSynchronizeStream: " + synced.message() + " [" +
                                     std::to_string(synced.value()) + "]");
    }
  }
  if (!st.ok()) {
    for (int i : to_alloc) (void)rt::device_free(outputs[i]);
  }
  return st;
}

}  // namespace arun::model

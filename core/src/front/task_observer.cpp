#include "arun/runtime/task_observer.hpp"

namespace arun::rt {
namespace {

thread_local TaskObserver* t_observer = nullptr;
thread_local uint64_t t_cookie = 0;

}  // namespace

TaskObserverScope::TaskObserverScope(TaskObserver* observer, uint64_t cookie)
    : saved_observer_(t_observer), saved_cookie_(t_cookie) {
  t_observer = observer;
  t_cookie = cookie;
}

TaskObserverScope::~TaskObserverScope() {
  t_observer = saved_observer_;
  t_cookie = saved_cookie_;
}

TaskObserver* current_task_observer(uint64_t* cookie) {
  *cookie = t_cookie;
  return t_observer;
}

}  // namespace arun::rt

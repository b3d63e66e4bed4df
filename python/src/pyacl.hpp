// pyACL-compatible bindings (`import acl`): shared helpers. pyACL's conventions, which CANN's Python
// programs rely on: every ACL object and pointer is a Python int; a call with outputs returns them
// first and the aclError last (`ptr, ret = acl.rt.malloc(size, policy)`); a call without outputs
// returns the aclError alone; a wrong argument type raises TypeError before any ACL call.
#pragma once

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>  // lists and tuples of handles, dims and shapes

#include <cstddef>
#include <cstdint>

#include "acl/acl.h"
#include "acl/acl_prof.h"

namespace pyacl {
namespace py = pybind11;

// An ACL handle or pointer as pyACL passes it: an integer address (0 is NULL).
template <class T>
T* from_int(uintptr_t v) {
  return reinterpret_cast<T*>(v);
}
inline uintptr_t to_int(const void* p) {
  return reinterpret_cast<uintptr_t>(p);
}

// Whether every page of [ptr, ptr + size) is mapped in this process: a host pointer that Python
// code got wrong must give an error code, not take the interpreter down. (A mapped page may still
// be the wrong memory; that, as in C, is the program's to get right.)
bool host_range_mapped(uintptr_t ptr, size_t size);

// Releases the GIL around a call that may block (synchronize, execute, process_report ...).
template <class F>
auto without_gil(F&& f) {
  py::gil_scoped_release release;
  return f();
}

void bind_rt(py::module_& rt);
void bind_mdl(py::module_& mdl);
void bind_op(py::module_& acl, py::module_& op);
void bind_util(py::module_& util);
void bind_prof(py::module_& prof);

}  // namespace pyacl

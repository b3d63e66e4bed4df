// arun/kernel.hpp compiles on its own, warning-free under -Wall -Wextra -pedantic, for the kinds of
// kernels users write: free functions, capturing lambdas, callables, by-value and const& arguments.
#include "arun/kernel.hpp"

#include <string>
#include <vector>

namespace {

void axpy(arun::Block b, float a, const float* x, float* y, size_t n) {
  auto xs = b.map(x, n);
  auto ys = b.map(y, n);
  for (size_t i : b.range(n)) ys[i] += a * xs[i];
}

struct Functor {
  int bias;
  void operator()(arun::Block b, int* out) const { b.at(out + b.index()) = bias; }
};

void takes_const_ref(arun::Block b, const std::vector<int>& table, const std::string& name, int* out) {
  if (name.empty()) b.trap("unnamed");
  auto v = b.map(out, table.size());
  for (size_t i : b.range(table.size())) v[i] = table[i];
}

}  // namespace

aclError arun_kernel_cpp_user(aclrtStream s, float* x, float* y, int* out) {
  aclError rc = arun::launch(s, 8, axpy, 2.0f, x, y, size_t(1024));
  if (rc != ACL_SUCCESS) return rc;
  rc = arun::launch(s, 2, Functor{7}, out);
  if (rc != ACL_SUCCESS) return rc;
  int offset = 3;  // not const: a constant would need no capture
  rc = arun::launch(
      s, 1, [offset](arun::Block b, int* p) { b.at(p) = offset; }, out);
  if (rc != ACL_SUCCESS) return rc;
  return arun::launch(s, 4, takes_const_ref, std::vector<int>{1, 2, 3}, std::string("t"), out);
}

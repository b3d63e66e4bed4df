// Einsum for the patterns models use: one operand (transposes, sums over letters: "ij->ji",
// "ij->i") and two operands (batched matmul-like contractions in any letter order: "ij,jk->ik",
// "bhid,bhjd->bhij", implicit output = the letters used once, in alphabetical order), float32 /
// float16. Two operands whose letters are each batch (both operands and the output), M (first
// operand and output), N (second and output) or K (both operands, summed) run as one sgemm per
// batch item on gathered float copies (sgemm.hpp, as MatMul). Everything else (one operand, a
// letter summed inside one operand) is a direct contraction loop accumulated in double: one output
// element at a time, the summed letters walked with a two-operand strided cursor.
//
// Ellipsis ("...ij,...jk->...ik") broadcasts the operands' leading dims as numpy does. Refused at
// the host with an attribute error naming the equation: a letter repeated inside one operand
// (diagonals), three or more operands, more than 8 output or summed letters.
#include <algorithm>

#include "kernel_common.hpp"
#include "sgemm.hpp"

namespace arun::ops {
namespace {

template <class T>
struct EinsumParams {
  const T* a;
  const T* b;  // nullptr with one operand
  T* out;
  int64_t n_a, n_b, n_out;
  StridedWalk outer;  // over the output: stride[0] in a, stride[1] in b
  StridedWalk inner;  // over the summed letters
  int64_t inner_count;
};

template <class T>
void einsum_kernel(arun::Block blk, const EinsumParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.n_out));
  if (r.size() == 0) return;
  using C = Compute<T>;
  T* out = blk.map(p.out, static_cast<size_t>(p.n_out)).data();
  if (p.inner_count == 0) {  // a sum over an empty letter
    for (size_t i = r.first; i < r.last; ++i) out[i] = C::store(0);
    return;
  }
  const T* a = blk.map(p.a, static_cast<size_t>(p.n_a)).data();
  const T* b = p.b != nullptr ? blk.map(p.b, static_cast<size_t>(p.n_b)).data() : nullptr;
  StridedWalk::Cursor oc = p.outer.at(static_cast<int64_t>(r.first));
  for (size_t i = r.first; i < r.last; ++i) {
    const T* pa = a + oc.off[0];
    double acc = 0.0;
    StridedWalk::Cursor ic = p.inner.at(0);
    if (b != nullptr) {
      const T* pb = b + oc.off[1];
      for (int64_t j = 0; j < p.inner_count; ++j) {
        acc += static_cast<double>(C::load(pa[ic.off[0]])) * static_cast<double>(C::load(pb[ic.off[1]]));
        p.inner.next(ic);
      }
    } else {
      for (int64_t j = 0; j < p.inner_count; ++j) {
        acc += static_cast<double>(C::load(pa[ic.off[0]]));
        p.inner.next(ic);
      }
    }
    out[i] = C::store(static_cast<typename C::type>(acc));
    p.outer.next(oc);
  }
}

// The sgemm form: out[batch, M, N] = sum over K of a[batch, M, K] * b[batch, K, N], each group
// of letters walked with its strides in the operands and the output.
template <class T>
struct EinsumGemmParams {
  const T* a;
  const T* b;
  T* out;
  int64_t n_a, n_b, n_out;
  int nb = 0;  // batch letters
  int64_t bdims[kMaxRank], bsa[kMaxRank], bsb[kMaxRank], bso[kMaxRank];
  int64_t batch = 1;
  StridedWalk m;  // stride[0] in a, stride[1] in out
  StridedWalk n;  // stride[0] in b, stride[1] in out
  StridedWalk k;  // stride[0] in a, stride[1] in b
  int64_t M = 1, N = 1, K = 1;
};

template <class T>
void einsum_gemm_kernel(arun::Block blk, const EinsumGemmParams<T>& p) {
  const IndexRange r = blk.range(static_cast<size_t>(p.batch));
  if (r.size() == 0) return;
  using C = Compute<T>;
  T* out = blk.map(p.out, static_cast<size_t>(p.n_out)).data();
  const T* a = p.K > 0 ? blk.map(p.a, static_cast<size_t>(p.n_a)).data() : nullptr;
  const T* b = p.K > 0 ? blk.map(p.b, static_cast<size_t>(p.n_b)).data() : nullptr;
  std::vector<float> am(static_cast<size_t>(p.M * p.K)), bm(static_cast<size_t>(p.K * p.N)),
      cm(static_cast<size_t>(p.M * p.N), 0.0f);
  for (size_t item = r.first; item < r.last; ++item) {
    int64_t lin = static_cast<int64_t>(item), oa = 0, ob = 0, oo = 0;
    for (int d = p.nb - 1; d >= 0; --d) {
      const int64_t i = lin % p.bdims[d];
      lin /= p.bdims[d];
      oa += i * p.bsa[d];
      ob += i * p.bsb[d];
      oo += i * p.bso[d];
    }
    if (p.K > 0) {
      StridedWalk::Cursor cmw = p.m.at(0);
      for (int64_t mi = 0; mi < p.M; ++mi, p.m.next(cmw)) {
        StridedWalk::Cursor ck = p.k.at(0);
        for (int64_t ki = 0; ki < p.K; ++ki, p.k.next(ck)) am[mi * p.K + ki] = C::load(a[oa + cmw.off[0] + ck.off[0]]);
      }
      StridedWalk::Cursor ck = p.k.at(0);
      for (int64_t ki = 0; ki < p.K; ++ki, p.k.next(ck)) {
        StridedWalk::Cursor cn = p.n.at(0);
        for (int64_t ni = 0; ni < p.N; ++ni, p.n.next(cn)) bm[ki * p.N + ni] = C::load(b[ob + ck.off[1] + cn.off[0]]);
      }
      sgemm(false, false, p.M, p.N, p.K, 1.0f, am.data(), p.K, bm.data(), p.N, 0.0f, cm.data(), p.N);
    }
    StridedWalk::Cursor cmw = p.m.at(0);
    for (int64_t mi = 0; mi < p.M; ++mi, p.m.next(cmw)) {
      StridedWalk::Cursor cn = p.n.at(0);
      for (int64_t ni = 0; ni < p.N; ++ni, p.n.next(cn)) out[oo + cmw.off[1] + cn.off[1]] = C::store(cm[mi * p.N + ni]);
    }
  }
}

bool is_letter(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

Status run_einsum(const OpCall& call) {
  ARUN_RETURN_IF_ERROR(call.expect_outputs(1));
  if (!call.has_attr("equation")) return call.attr_error("attribute 'equation' is required");
  std::string eq;
  ARUN_RETURN_IF_ERROR(call.attr_string("equation", "", &eq));
  const std::string quoted = "equation '" + eq + "'";
  std::string s;
  for (char c : eq) {
    if (c != ' ') s += c;
  }
  const size_t arrow = s.find("->");
  const std::string lhs = s.substr(0, arrow);
  std::vector<std::string> ops;
  for (size_t at = 0;;) {
    const size_t comma = lhs.find(',', at);
    ops.push_back(lhs.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  if (ops.size() > 2) return call.attr_error(quoted + ": only one or two operands are supported");
  ARUN_RETURN_IF_ERROR(call.expect_inputs(ops.size(), ops.size()));
  // Everything but one "..." per term must be letters.
  const auto check_term = [&](const std::string& term) -> Status {
    const size_t at = term.find("...");
    std::string rest = at == std::string::npos ? term : term.substr(0, at) + term.substr(at + 3);
    for (char c : rest) {
      if (!is_letter(c)) return call.attr_error(quoted + ": '" + std::string(1, c) + "' is not a letter");
    }
    return Status::Ok();
  };
  for (const std::string& o : ops) ARUN_RETURN_IF_ERROR(check_term(o));
  // "..." stands for an operand's dims beyond its letters; the operands' ellipses broadcast
  // together, aligned on the right, as pseudo-letters 1..E (control characters: never a letter).
  int ell = 0;
  std::vector<int> ell_of(ops.size(), 0);
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].find("...") == std::string::npos) continue;
    ell_of[k] = call.inputs[k].rank() - static_cast<int>(ops[k].size() - 3);
    if (ell_of[k] < 0) {
      return call.input_error("operand " + std::to_string(k) + " " + shape_text(call.inputs[k].shape) +
                              " has fewer dims than the letters of " + quoted);
    }
    ell = std::max(ell, ell_of[k]);
  }
  if (ell > kMaxRank) return call.attr_error(quoted + ": the ellipsis covers more than 8 dims");
  const auto expand = [&](const std::string& term, int e) {
    const size_t at = term.find("...");
    if (at == std::string::npos) return term;
    std::string pseudo;
    for (int j = 0; j < e; ++j) pseudo += static_cast<char>(1 + ell - e + j);
    return term.substr(0, at) + pseudo + term.substr(at + 3);
  };
  for (size_t k = 0; k < ops.size(); ++k) ops[k] = expand(ops[k], ell_of[k]);
  int uses[128] = {};
  for (const std::string& o : ops) {
    bool seen[128] = {};
    for (char c : o) {
      if (seen[int(c)]) {
        return call.attr_error(quoted + ": letter '" + std::string(1, c) +
                               "' repeats inside one operand (diagonals are not supported)");
      }
      seen[int(c)] = true;
      ++uses[int(c)];
    }
  }
  std::string outl;
  if (arrow != std::string::npos) {
    ARUN_RETURN_IF_ERROR(check_term(s.substr(arrow + 2)));
    outl = expand(s.substr(arrow + 2), ell);
    bool seen[128] = {};
    for (char c : outl) {
      if (uses[int(c)] == 0 || seen[int(c)]) {
        return call.attr_error(quoted + ": output letter '" + std::string(1, c) +
                               "' is not a letter of the inputs or repeats");
      }
      seen[int(c)] = true;
    }
  } else {  // implicit: the ellipsis, then the letters used once, alphabetically (upper case first)
    outl = expand("...", ell);
    for (int c = 'A'; c < 128; ++c) {
      if (uses[c] == 1) outl += static_cast<char>(c);
    }
  }
  int64_t size[128];
  std::fill(std::begin(size), std::end(size), -1);
  Shape strides[2];
  for (size_t k = 0; k < ops.size(); ++k) {
    const Tensor& t = call.inputs[k];
    if (t.rank() != static_cast<int>(ops[k].size())) {
      return call.input_error("operand " + std::to_string(k) + " " + shape_text(t.shape) + " has rank " +
                              std::to_string(t.rank()) + ", " + quoted + " gives it " + std::to_string(ops[k].size()) +
                              " letters");
    }
    for (size_t i = 0; i < ops[k].size(); ++i) {
      const int c = ops[k][i];
      const bool pseudo = c <= kMaxRank;
      if (size[c] >= 0 && size[c] != t.shape[i]) {
        if (pseudo && (size[c] == 1 || t.shape[i] == 1)) {  // ellipsis dims broadcast
          if (size[c] == 1) size[c] = t.shape[i];
          continue;
        }
        return call.input_error((pseudo ? std::string("an ellipsis dim") : "letter '" + std::string(1, char(c)) + "'") +
                                " has sizes " + std::to_string(size[c]) + " and " + std::to_string(t.shape[i]) +
                                " in " + quoted);
      }
      size[c] = t.shape[i];
    }
    strides[k] = contiguous_strides(t.shape);
  }
  ARUN_RETURN_IF_ERROR(call.same_dtype({0, 1}));
  std::string summed;
  for (int c = 0; c < 128; ++c) {
    if (uses[c] > 0 && outl.find(char(c)) == std::string::npos) summed += static_cast<char>(c);
  }
  if (outl.size() > kMaxRank || summed.size() > kMaxRank) {
    return call.attr_error(quoted + ": more than " + std::to_string(kMaxRank) + " output or summed letters");
  }
  // Strides of each letter in operand k (0 where the operand lacks it).
  const auto letter_stride = [&](size_t k, char c) -> int64_t {
    if (k >= ops.size()) return 0;
    const size_t at = ops[k].find(c);
    if (at == std::string::npos) return 0;
    return call.inputs[k].shape[at] == 1 && size[int(c)] != 1 ? 0 : strides[k][at];  // broadcast
  };
  EinsumParams<Half> shape_only{};
  Shape out_shape;
  for (char c : outl) {
    StridedWalk& w = shape_only.outer;
    w.dims[w.rank] = size[int(c)];
    w.stride[0][w.rank] = letter_stride(0, c);
    w.stride[1][w.rank] = letter_stride(1, c);
    ++w.rank;
    out_shape.push_back(size[int(c)]);
  }
  int64_t inner_count = 1;
  for (char c : summed) {
    StridedWalk& w = shape_only.inner;
    w.dims[w.rank] = size[int(c)];
    w.stride[0][w.rank] = letter_stride(0, c);
    w.stride[1][w.rank] = letter_stride(1, c);
    ++w.rank;
    inner_count *= size[int(c)];
  }
  const Tensor& a = call.inputs[0];
  ARUN_RETURN_IF_ERROR(call.expect_output(0, a.dtype, out_shape));
  const int64_t n_out = numel(out_shape);
  if (n_out == 0) return Status::Ok();
  // The sgemm form when every letter is batch, M, N or K (and the copies stay moderate).
  const Shape out_strides = contiguous_strides(out_shape);
  EinsumGemmParams<Half> g{};
  bool gemm = ops.size() == 2;
  for (int c = 0; c < 128 && gemm; ++c) {
    if (uses[c] == 0) continue;
    const bool in_a = ops[0].find(char(c)) != std::string::npos, in_b = ops[1].find(char(c)) != std::string::npos;
    const size_t at_o = outl.find(char(c));
    const int64_t so = at_o == std::string::npos ? 0 : out_strides[at_o], sa = letter_stride(0, char(c)),
                  sb = letter_stride(1, char(c));
    const auto add = [&](StridedWalk& w, int64_t s0, int64_t s1) {
      w.dims[w.rank] = size[c];
      w.stride[0][w.rank] = s0;
      w.stride[1][w.rank] = s1;
      ++w.rank;
    };
    if (in_a && in_b && at_o != std::string::npos) {
      g.bdims[g.nb] = size[c];
      g.bsa[g.nb] = sa;
      g.bsb[g.nb] = sb;
      g.bso[g.nb++] = so;
      g.batch *= size[c];
    } else if (in_a && at_o != std::string::npos) {
      add(g.m, sa, so);
      g.M *= size[c];
    } else if (in_b && at_o != std::string::npos) {
      add(g.n, sb, so);
      g.N *= size[c];
    } else if (in_a && in_b) {
      add(g.k, sa, sb);
      g.K *= size[c];
    } else {
      gemm = false;  // summed inside one operand
    }
  }
  gemm = gemm && g.M * g.K + g.K * g.N + g.M * g.N <= (int64_t{1} << 24) && g.M <= INT32_MAX && g.N <= INT32_MAX &&
         g.K <= INT32_MAX;
  Status st;
  if (gemm) pin_blas_threads();
  const bool ok = dispatch_float(a.dtype, [&](auto tag) {
    using T = decltype(tag);
    const bool two = ops.size() == 2;
    if (gemm) {
      EinsumGemmParams<T> p{ptr<T>(a),
                            ptr<T>(call.inputs[1]),
                            ptr<T>(call.outputs[0]),
                            a.count(),
                            call.inputs[1].count(),
                            n_out,
                            g.nb,
                            {},
                            {},
                            {},
                            {},
                            g.batch,
                            g.m,
                            g.n,
                            g.k,
                            g.M,
                            g.N,
                            g.K};
      for (int d = 0; d < g.nb; ++d) {
        p.bdims[d] = g.bdims[d];
        p.bsa[d] = g.bsa[d];
        p.bsb[d] = g.bsb[d];
        p.bso[d] = g.bso[d];
      }
      const uint32_t blocks = call.blocks_for(g.batch * g.M * g.N * std::max<int64_t>(g.K, 1), 1 << 16);
      st = launch_op(call, static_cast<uint32_t>(std::min<int64_t>(blocks, g.batch)), einsum_gemm_kernel<T>, p);
      return;
    }
    EinsumParams<T> p{ptr<T>(a),
                      two ? ptr<T>(call.inputs[1]) : nullptr,
                      ptr<T>(call.outputs[0]),
                      a.count(),
                      two ? call.inputs[1].count() : 0,
                      n_out,
                      shape_only.outer,
                      shape_only.inner,
                      inner_count};
    st = launch_op(call, call.blocks_for(n_out * std::max<int64_t>(inner_count, 1), 1 << 16), einsum_kernel<T>, p);
  });
  if (!ok) return call.dtype_error(std::string("no kernel for ") + dtype_name(a.dtype) + " (float32, float16)");
  return st;
}

}  // namespace

void register_einsum(std::vector<OpDef>& defs) {
  defs.push_back({"Einsum", &run_einsum, {"equation"}});
}

}  // namespace arun::ops

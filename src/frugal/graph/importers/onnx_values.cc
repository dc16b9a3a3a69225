#include "frugal/graph/importers/onnx_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>

namespace frugal::importers {
namespace {

using onnx::TensorProto;
using Values = std::vector<TensorValue>;
using MaybeValues = std::optional<Values>;

int64_t Product(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0 || (d > 0 && n > kMaxValueElems * 16 / d)) return -1;
    n *= d;
  }
  return n;
}

bool SizeOk(const std::vector<int64_t>& dims) {
  int64_t n = Product(dims);
  return n >= 0 && n <= kMaxValueElems;
}

// Row-major strides of `dims`.
std::vector<int64_t> Strides(const std::vector<int64_t>& dims) {
  std::vector<int64_t> s(dims.size(), 1);
  for (int i = static_cast<int>(dims.size()) - 2; i >= 0; --i)
    s[i] = s[i + 1] * dims[i + 1];
  return s;
}

TensorValue Empty(int32_t elem_type, std::vector<int64_t> dims) {
  TensorValue v;
  v.elem_type = elem_type;
  v.dims = std::move(dims);
  return v;
}

// Appends element `i` of `src` to `dst` (same storage kind).
void Append(const TensorValue& src, int64_t i, TensorValue* dst) {
  if (dst->IsFloat()) {
    dst->floats.push_back(src.AsDouble(i));
  } else {
    dst->ints.push_back(src.AsInt(i));
  }
}

// Converts `v` to `to` (a Cast).
TensorValue CastTo(const TensorValue& v, int32_t to) {
  TensorValue out = Empty(to, v.dims);
  const int64_t n = v.NumElements();
  for (int64_t i = 0; i < n; ++i) {
    if (out.IsFloat()) {
      out.floats.push_back(v.AsDouble(i));
    } else if (to == TensorProto::BOOL) {
      out.ints.push_back(v.AsDouble(i) != 0 ? 1 : 0);
    } else if (v.IsFloat()) {
      double d = v.floats[i];
      if (!std::isfinite(d) || std::fabs(d) > 9.2e18) d = 0;
      out.ints.push_back(static_cast<int64_t>(d));
    } else {
      out.ints.push_back(v.ints[i]);
    }
  }
  return out;
}

// numpy broadcasting of `shapes`; false when incompatible.
bool BroadcastDims(const std::vector<const std::vector<int64_t>*>& shapes,
                   std::vector<int64_t>* out) {
  size_t rank = 0;
  for (auto* s : shapes) rank = std::max(rank, s->size());
  out->assign(rank, 1);
  for (auto* s : shapes) {
    const size_t off = rank - s->size();
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[i];
      int64_t& o = (*out)[off + i];
      if (d == o || d == 1) continue;
      if (o != 1) return false;
      o = d;
    }
  }
  return SizeOk(*out);
}

// Flat index into `v` of element `idx` (of the broadcast shape `dims`).
int64_t BroadcastIndex(const TensorValue& v, const std::vector<int64_t>& dims,
                       int64_t flat) {
  const size_t off = dims.size() - v.dims.size();
  std::vector<int64_t> vs = Strides(v.dims);
  int64_t index = 0;
  for (int i = static_cast<int>(dims.size()) - 1; i >= 0; --i) {
    int64_t coord = flat % dims[i];
    flat /= dims[i];
    if (i < static_cast<int>(off)) continue;
    if (v.dims[i - off] != 1) index += coord * vs[i - off];
  }
  return index;
}

using IntOp = std::function<std::optional<int64_t>(int64_t, int64_t)>;
using FloatOp = std::function<double(double, double)>;

MaybeValues Binary(const TensorValue& a, const TensorValue& b, int32_t out_type,
                   const IntOp& iop, const FloatOp& fop) {
  std::vector<int64_t> dims;
  if (!BroadcastDims({&a.dims, &b.dims}, &dims)) return std::nullopt;
  TensorValue out = Empty(out_type, dims);
  const int64_t n = Product(dims);
  const bool as_float = a.IsFloat() || b.IsFloat();
  for (int64_t i = 0; i < n; ++i) {
    int64_t ia = BroadcastIndex(a, dims, i), ib = BroadcastIndex(b, dims, i);
    if (as_float) {
      double r = fop(a.AsDouble(ia), b.AsDouble(ib));
      if (out.IsFloat()) {
        out.floats.push_back(r);
      } else {
        out.ints.push_back(r != 0 ? 1 : 0);  // comparisons into bool
      }
    } else {
      std::optional<int64_t> r = iop(a.AsInt(ia), b.AsInt(ib));
      if (!r) return std::nullopt;
      if (out.IsFloat()) {
        out.floats.push_back(static_cast<double>(*r));
      } else {
        out.ints.push_back(*r);
      }
    }
  }
  return Values{std::move(out)};
}

MaybeValues Unary(const TensorValue& a, const std::function<double(double)>& f,
                  const std::function<int64_t(int64_t)>& g) {
  TensorValue out = Empty(a.elem_type, a.dims);
  for (int64_t i = 0; i < a.NumElements(); ++i) {
    if (a.IsFloat()) {
      out.floats.push_back(f(a.floats[i]));
    } else {
      out.ints.push_back(g(a.ints[i]));
    }
  }
  return Values{std::move(out)};
}

const onnx::AttributeProto* Attr(const onnx::NodeProto& node, const char* name) {
  for (const auto& a : node.attribute()) {
    if (a.name() == name) return &a;
  }
  return nullptr;
}

int64_t AttrInt(const onnx::NodeProto& node, const char* name, int64_t def) {
  const auto* a = Attr(node, name);
  return a == nullptr ? def : a->i();
}

std::optional<std::vector<int64_t>> AttrInts(const onnx::NodeProto& node,
                                             const char* name) {
  const auto* a = Attr(node, name);
  if (a == nullptr) return std::nullopt;
  return std::vector<int64_t>(a->ints().begin(), a->ints().end());
}

// Axes from an attribute (old opsets) or input `index` (new ones).
std::optional<std::vector<int64_t>> Axes(
    const onnx::NodeProto& node, const std::vector<const TensorValue*>& in,
    size_t index, bool* missing) {
  *missing = false;
  if (auto a = AttrInts(node, "axes")) return a;
  if (in.size() > index && node.input_size() > static_cast<int>(index) &&
      !node.input(index).empty()) {
    if (in[index] == nullptr) {
      *missing = true;
      return std::nullopt;
    }
    std::vector<int64_t> axes;
    for (int64_t i = 0; i < in[index]->NumElements(); ++i)
      axes.push_back(in[index]->AsInt(i));
    return axes;
  }
  return std::nullopt;
}

bool NormalizeAxis(int64_t* axis, int64_t rank) {
  if (*axis < 0) *axis += rank;
  return *axis >= 0 && *axis < rank;
}

MaybeValues Gather(const TensorValue& data, const TensorValue& idx,
                   int64_t axis) {
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  if (!NormalizeAxis(&axis, rank) || idx.IsFloat()) return std::nullopt;
  std::vector<int64_t> dims(data.dims.begin(), data.dims.begin() + axis);
  dims.insert(dims.end(), idx.dims.begin(), idx.dims.end());
  dims.insert(dims.end(), data.dims.begin() + axis + 1, data.dims.end());
  if (!SizeOk(dims)) return std::nullopt;
  int64_t outer = Product({data.dims.begin(), data.dims.begin() + axis});
  int64_t inner = Product({data.dims.begin() + axis + 1, data.dims.end()});
  const int64_t n_axis = data.dims[axis];
  TensorValue out = Empty(data.elem_type, dims);
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < idx.NumElements(); ++k) {
      int64_t j = idx.ints[k];
      if (j < 0) j += n_axis;
      if (j < 0 || j >= n_axis) return std::nullopt;
      for (int64_t i = 0; i < inner; ++i)
        Append(data, (o * n_axis + j) * inner + i, &out);
    }
  }
  return Values{std::move(out)};
}

MaybeValues Slice(const onnx::NodeProto& node, int opset,
                  const std::vector<const TensorValue*>& in) {
  const TensorValue& data = *in[0];
  const int64_t rank = static_cast<int64_t>(data.dims.size());
  std::vector<int64_t> starts, ends, axes, steps;
  auto read = [&](size_t i, std::vector<int64_t>* v) {
    if (in.size() <= i || node.input_size() <= static_cast<int>(i) ||
        node.input(i).empty()) {
      return true;
    }
    if (in[i] == nullptr) return false;
    for (int64_t k = 0; k < in[i]->NumElements(); ++k)
      v->push_back(in[i]->AsInt(k));
    return true;
  };
  if (opset < 10) {
    starts = AttrInts(node, "starts").value_or(std::vector<int64_t>{});
    ends = AttrInts(node, "ends").value_or(std::vector<int64_t>{});
    axes = AttrInts(node, "axes").value_or(std::vector<int64_t>{});
  } else if (!read(1, &starts) || !read(2, &ends) || !read(3, &axes) ||
             !read(4, &steps)) {
    return std::nullopt;
  }
  if (starts.size() != ends.size()) return std::nullopt;
  if (axes.empty()) {
    for (size_t i = 0; i < starts.size(); ++i)
      axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty()) steps.assign(starts.size(), 1);
  if (axes.size() != starts.size() || steps.size() != starts.size())
    return std::nullopt;
  std::vector<int64_t> lo(rank, 0), step(rank, 1), count(data.dims);
  for (size_t i = 0; i < axes.size(); ++i) {
    int64_t a = axes[i];
    if (!NormalizeAxis(&a, rank) || steps[i] == 0) return std::nullopt;
    const int64_t dim = data.dims[a];
    int64_t s = starts[i], e = ends[i];
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    if (steps[i] > 0) {
      s = std::clamp<int64_t>(s, 0, dim);
      e = std::clamp<int64_t>(e, 0, dim);
      count[a] = e > s ? (e - s + steps[i] - 1) / steps[i] : 0;
    } else {
      s = std::clamp<int64_t>(s, 0, dim - 1);
      e = std::clamp<int64_t>(e, -1, dim - 1);
      count[a] = s > e ? (s - e - steps[i] - 1) / -steps[i] : 0;
    }
    lo[a] = s;
    step[a] = steps[i];
  }
  TensorValue out = Empty(data.elem_type, count);
  const int64_t n = Product(count);
  std::vector<int64_t> ds = Strides(data.dims);
  for (int64_t flat = 0; flat < n; ++flat) {
    int64_t rem = flat, index = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t c = rem % count[d];
      rem /= count[d];
      index += (lo[d] + c * step[d]) * ds[d];
    }
    Append(data, index, &out);
  }
  return Values{std::move(out)};
}

MaybeValues Concat(const onnx::NodeProto& node,
                   const std::vector<const TensorValue*>& in) {
  if (in.empty() || in[0] == nullptr) return std::nullopt;
  int64_t axis = AttrInt(node, "axis", 0);
  const int64_t rank = static_cast<int64_t>(in[0]->dims.size());
  if (!NormalizeAxis(&axis, rank)) return std::nullopt;
  std::vector<int64_t> dims = in[0]->dims;
  dims[axis] = 0;
  for (const TensorValue* v : in) {
    if (v == nullptr || static_cast<int64_t>(v->dims.size()) != rank)
      return std::nullopt;
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && v->dims[d] != dims[d]) return std::nullopt;
    }
    dims[axis] += v->dims[axis];
  }
  if (!SizeOk(dims)) return std::nullopt;
  const int64_t outer = Product({dims.begin(), dims.begin() + axis});
  TensorValue out = Empty(in[0]->elem_type, dims);
  for (int64_t o = 0; o < outer; ++o) {
    for (const TensorValue* v : in) {
      const int64_t chunk = Product({v->dims.begin() + axis, v->dims.end()});
      for (int64_t i = 0; i < chunk; ++i) Append(*v, o * chunk + i, &out);
    }
  }
  return Values{std::move(out)};
}

MaybeValues Reshaped(const TensorValue& v, std::vector<int64_t> dims) {
  if (Product(dims) != v.NumElements()) return std::nullopt;
  TensorValue out = v;
  out.dims = std::move(dims);
  return Values{std::move(out)};
}

MaybeValues Reshape(const onnx::NodeProto& node, const TensorValue& data,
                    const TensorValue& shape) {
  const bool allow_zero = AttrInt(node, "allowzero", 0) != 0;
  std::vector<int64_t> dims;
  int infer = -1;
  int64_t known = 1;
  for (int64_t i = 0; i < shape.NumElements(); ++i) {
    int64_t d = shape.AsInt(i);
    if (d == 0 && !allow_zero) {
      if (i >= static_cast<int64_t>(data.dims.size())) return std::nullopt;
      d = data.dims[i];
    }
    if (d == -1) {
      if (infer >= 0) return std::nullopt;
      infer = static_cast<int>(i);
      dims.push_back(1);
      continue;
    }
    if (d < 0) return std::nullopt;
    dims.push_back(d);
    known *= d;
  }
  if (infer >= 0) {
    if (known == 0 || data.NumElements() % known != 0) return std::nullopt;
    dims[infer] = data.NumElements() / known;
  }
  return Reshaped(data, dims);
}

MaybeValues Unsqueeze(const TensorValue& v, std::vector<int64_t> axes) {
  const int64_t rank = static_cast<int64_t>(v.dims.size() + axes.size());
  for (int64_t& a : axes) {
    if (!NormalizeAxis(&a, rank)) return std::nullopt;
  }
  std::sort(axes.begin(), axes.end());
  std::vector<int64_t> dims;
  size_t src = 0, k = 0;
  for (int64_t d = 0; d < rank; ++d) {
    if (k < axes.size() && axes[k] == d) {
      dims.push_back(1);
      ++k;
    } else {
      if (src >= v.dims.size()) return std::nullopt;
      dims.push_back(v.dims[src++]);
    }
  }
  return Reshaped(v, dims);
}

MaybeValues Squeeze(const TensorValue& v,
                    const std::optional<std::vector<int64_t>>& axes) {
  const int64_t rank = static_cast<int64_t>(v.dims.size());
  std::vector<bool> drop(rank, false);
  if (axes) {
    for (int64_t a : *axes) {
      if (!NormalizeAxis(&a, rank) || v.dims[a] != 1) return std::nullopt;
      drop[a] = true;
    }
  } else {
    for (int64_t d = 0; d < rank; ++d) drop[d] = v.dims[d] == 1;
  }
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < rank; ++d) {
    if (!drop[d]) dims.push_back(v.dims[d]);
  }
  return Reshaped(v, dims);
}

MaybeValues Expand(const TensorValue& v, const TensorValue& shape) {
  std::vector<int64_t> target;
  for (int64_t i = 0; i < shape.NumElements(); ++i)
    target.push_back(shape.AsInt(i));
  std::vector<int64_t> dims;
  if (!BroadcastDims({&v.dims, &target}, &dims)) return std::nullopt;
  TensorValue out = Empty(v.elem_type, dims);
  for (int64_t i = 0; i < Product(dims); ++i)
    Append(v, BroadcastIndex(v, dims, i), &out);
  return Values{std::move(out)};
}

MaybeValues Where(const TensorValue& c, const TensorValue& x,
                  const TensorValue& y) {
  std::vector<int64_t> dims;
  if (!BroadcastDims({&c.dims, &x.dims, &y.dims}, &dims)) return std::nullopt;
  TensorValue out = Empty(x.elem_type, dims);
  for (int64_t i = 0; i < Product(dims); ++i) {
    bool take_x = c.AsInt(BroadcastIndex(c, dims, i)) != 0;
    const TensorValue& src = take_x ? x : y;
    Append(src, BroadcastIndex(src, dims, i), &out);
  }
  return Values{std::move(out)};
}

MaybeValues Range(const TensorValue& start, const TensorValue& limit,
                  const TensorValue& delta) {
  if (start.NumElements() != 1 || limit.NumElements() != 1 ||
      delta.NumElements() != 1) {
    return std::nullopt;
  }
  const double s = start.AsDouble(0), l = limit.AsDouble(0),
               d = delta.AsDouble(0);
  if (d == 0 || !std::isfinite(s) || !std::isfinite(l) || !std::isfinite(d))
    return std::nullopt;
  const double count = std::max(0.0, std::ceil((l - s) / d));
  if (count > kMaxValueElems) return std::nullopt;
  TensorValue out = Empty(start.elem_type, {static_cast<int64_t>(count)});
  for (int64_t i = 0; i < static_cast<int64_t>(count); ++i) {
    if (out.IsFloat()) {
      out.floats.push_back(s + i * d);
    } else {
      out.ints.push_back(start.AsInt(0) + i * delta.AsInt(0));
    }
  }
  return Values{std::move(out)};
}

MaybeValues ConstantOfShape(const onnx::NodeProto& node,
                            const TensorValue& shape) {
  std::vector<int64_t> dims;
  for (int64_t i = 0; i < shape.NumElements(); ++i)
    dims.push_back(shape.AsInt(i));
  if (!SizeOk(dims)) return std::nullopt;
  TensorValue fill = Empty(TensorProto::FLOAT, {});
  fill.floats.push_back(0);
  if (const auto* a = Attr(node, "value"); a != nullptr && a->has_t()) {
    std::optional<TensorValue> v = ValueFromTensor(a->t());
    if (!v || v->NumElements() != 1) return std::nullopt;
    fill = *v;
  }
  TensorValue out = Empty(fill.elem_type, dims);
  for (int64_t i = 0; i < Product(dims); ++i) Append(fill, 0, &out);
  return Values{std::move(out)};
}

MaybeValues Tile(const TensorValue& v, const TensorValue& repeats) {
  if (repeats.NumElements() != static_cast<int64_t>(v.dims.size()))
    return std::nullopt;
  std::vector<int64_t> dims = v.dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (repeats.AsInt(d) < 0) return std::nullopt;
    dims[d] *= repeats.AsInt(d);
  }
  if (!SizeOk(dims)) return std::nullopt;
  TensorValue out = Empty(v.elem_type, dims);
  std::vector<int64_t> vs = Strides(v.dims);
  for (int64_t flat = 0; flat < Product(dims); ++flat) {
    int64_t rem = flat, index = 0;
    for (int d = static_cast<int>(dims.size()) - 1; d >= 0; --d) {
      index += (rem % dims[d]) % v.dims[d] * vs[d];
      rem /= dims[d];
    }
    Append(v, index, &out);
  }
  return Values{std::move(out)};
}

MaybeValues Transpose(const onnx::NodeProto& node, const TensorValue& v) {
  const size_t rank = v.dims.size();
  std::vector<int64_t> perm =
      AttrInts(node, "perm").value_or(std::vector<int64_t>{});
  if (perm.empty()) {
    for (size_t i = 0; i < rank; ++i) perm.push_back(rank - 1 - i);
  }
  if (perm.size() != rank) return std::nullopt;
  std::vector<int64_t> dims;
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(rank)) return std::nullopt;
    dims.push_back(v.dims[p]);
  }
  std::vector<int64_t> vs = Strides(v.dims);
  TensorValue out = Empty(v.elem_type, dims);
  for (int64_t flat = 0; flat < v.NumElements(); ++flat) {
    int64_t rem = flat, index = 0;
    for (int d = static_cast<int>(rank) - 1; d >= 0; --d) {
      index += (rem % dims[d]) * vs[perm[d]];
      rem /= dims[d];
    }
    Append(v, index, &out);
  }
  return Values{std::move(out)};
}

// ReduceProd / ReduceSum / ReduceMin / ReduceMax over `axes` (all if none).
MaybeValues Reduce(const onnx::NodeProto& node, const TensorValue& v,
                   std::optional<std::vector<int64_t>> axes) {
  const int64_t rank = static_cast<int64_t>(v.dims.size());
  const bool keep = AttrInt(node, "keepdims", 1) != 0;
  std::vector<bool> reduce(rank, !axes || axes->empty());
  if (axes) {
    for (int64_t a : *axes) {
      if (!NormalizeAxis(&a, rank)) return std::nullopt;
      reduce[a] = true;
    }
  }
  std::vector<int64_t> dims, kept;
  for (int64_t d = 0; d < rank; ++d) {
    kept.push_back(reduce[d] ? 1 : v.dims[d]);
    if (!reduce[d] || keep) dims.push_back(kept.back());
  }
  const std::string& op = node.op_type();
  std::vector<double> acc(Product(kept), op == "ReduceProd" ? 1.0 : 0.0);
  std::vector<bool> seen(acc.size(), false);
  std::vector<int64_t> ks = Strides(kept);
  for (int64_t flat = 0; flat < v.NumElements(); ++flat) {
    int64_t rem = flat, index = 0;
    for (int64_t d = rank - 1; d >= 0; --d) {
      int64_t c = rem % v.dims[d];
      rem /= v.dims[d];
      if (!reduce[d]) index += c * ks[d];
    }
    double x = v.AsDouble(flat);
    double& a = acc[index];
    if (op == "ReduceProd") {
      a *= x;
    } else if (op == "ReduceSum") {
      a += x;
    } else if (!seen[index]) {
      a = x;
    } else {
      a = op == "ReduceMin" ? std::min(a, x) : std::max(a, x);
    }
    seen[index] = true;
  }
  TensorValue out = Empty(v.elem_type, dims);
  for (double a : acc) {
    if (out.IsFloat()) {
      out.floats.push_back(a);
    } else {
      out.ints.push_back(static_cast<int64_t>(a));
    }
  }
  return Values{std::move(out)};
}

std::optional<int64_t> IntDiv(int64_t a, int64_t b) {
  if (b == 0 || (a == std::numeric_limits<int64_t>::min() && b == -1))
    return std::nullopt;
  return a / b;
}

std::optional<int64_t> IntMod(int64_t a, int64_t b, bool fmod) {
  if (b == 0 || b == -1) return b == 0 ? std::nullopt : std::optional<int64_t>(0);
  int64_t r = a % b;
  if (!fmod && r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

// Saturating int64 arithmetic: shape math never overflows in real files;
// on hostile ones the result is simply not tracked.
std::optional<int64_t> Checked(int64_t a, int64_t b, char op) {
  int64_t r;
  bool overflow = op == '+'   ? __builtin_add_overflow(a, b, &r)
                  : op == '-' ? __builtin_sub_overflow(a, b, &r)
                              : __builtin_mul_overflow(a, b, &r);
  if (overflow) return std::nullopt;
  return r;
}

MaybeValues Arithmetic(const onnx::NodeProto& node,
                       const std::vector<const TensorValue*>& in) {
  const std::string& op = node.op_type();
  const TensorValue& a = *in[0];
  const int32_t t = a.elem_type;
  if (op == "Add")
    return Binary(a, *in[1], t, [](int64_t x, int64_t y) { return Checked(x, y, '+'); },
                  std::plus<double>());
  if (op == "Sub")
    return Binary(a, *in[1], t, [](int64_t x, int64_t y) { return Checked(x, y, '-'); },
                  std::minus<double>());
  if (op == "Mul")
    return Binary(a, *in[1], t, [](int64_t x, int64_t y) { return Checked(x, y, '*'); },
                  std::multiplies<double>());
  if (op == "Div")
    return Binary(a, *in[1], t, IntDiv, std::divides<double>());
  if (op == "Mod") {
    const bool fmod = AttrInt(node, "fmod", 0) != 0;
    return Binary(
        a, *in[1], t, [fmod](int64_t x, int64_t y) { return IntMod(x, y, fmod); },
        [fmod](double x, double y) {
          double r = std::fmod(x, y);
          if (!fmod && r != 0 && ((r < 0) != (y < 0))) r += y;
          return r;
        });
  }
  if (op == "Pow")
    return Binary(
        a, *in[1], t,
        [](int64_t x, int64_t y) -> std::optional<int64_t> {
          double r = std::pow(static_cast<double>(x), static_cast<double>(y));
          if (!std::isfinite(r) || std::fabs(r) > 9e18) return std::nullopt;
          return static_cast<int64_t>(r);
        },
        [](double x, double y) { return std::pow(x, y); });
  auto cmp = [&](auto icmp, auto fcmp) {
    return Binary(
        a, *in[1], TensorProto::BOOL,
        [icmp](int64_t x, int64_t y) -> std::optional<int64_t> { return icmp(x, y) ? 1 : 0; },
        [fcmp](double x, double y) { return fcmp(x, y) ? 1.0 : 0.0; });
  };
  if (op == "Equal") return cmp(std::equal_to<int64_t>(), std::equal_to<double>());
  if (op == "Less") return cmp(std::less<int64_t>(), std::less<double>());
  if (op == "Greater") return cmp(std::greater<int64_t>(), std::greater<double>());
  if (op == "LessOrEqual") return cmp(std::less_equal<int64_t>(), std::less_equal<double>());
  if (op == "GreaterOrEqual")
    return cmp(std::greater_equal<int64_t>(), std::greater_equal<double>());
  if (op == "And") return cmp(std::logical_and<int64_t>(), std::logical_and<double>());
  if (op == "Or") return cmp(std::logical_or<int64_t>(), std::logical_or<double>());
  if (op == "Xor")
    return cmp(std::not_equal_to<int64_t>(), [](double x, double y) { return (x != 0) != (y != 0); });
  return std::nullopt;
}

MaybeValues Variadic(const std::vector<const TensorValue*>& in, bool is_max) {
  TensorValue acc = *in[0];
  for (size_t i = 1; i < in.size(); ++i) {
    auto r = Binary(
        acc, *in[i], acc.elem_type,
        [is_max](int64_t x, int64_t y) -> std::optional<int64_t> {
          return is_max ? std::max(x, y) : std::min(x, y);
        },
        [is_max](double x, double y) { return is_max ? std::max(x, y) : std::min(x, y); });
    if (!r) return std::nullopt;
    acc = (*r)[0];
  }
  return Values{std::move(acc)};
}

// The static dims of an inferred type.
std::optional<std::vector<int64_t>> StaticDims(const onnx::TypeProto* t) {
  if (t == nullptr || !t->has_tensor_type() || !t->tensor_type().has_shape())
    return std::nullopt;
  std::vector<int64_t> dims;
  for (const auto& d : t->tensor_type().shape().dim()) {
    if (!d.has_dim_value() || d.dim_value() < 0) return std::nullopt;
    dims.push_back(d.dim_value());
  }
  return dims;
}

MaybeValues ShapeOf(const onnx::NodeProto& node, const onnx::TypeProto* t,
                    const TensorValue* value) {
  std::optional<std::vector<int64_t>> dims = StaticDims(t);
  if (!dims && value != nullptr) dims = value->dims;
  if (!dims) return std::nullopt;
  const int64_t rank = static_cast<int64_t>(dims->size());
  int64_t start = AttrInt(node, "start", 0);
  int64_t end = AttrInt(node, "end", rank);
  if (start < 0) start += rank;
  if (end < 0) end += rank;
  start = std::clamp<int64_t>(start, 0, rank);
  end = std::clamp<int64_t>(end, 0, rank);
  TensorValue out = Empty(TensorProto::INT64, {std::max<int64_t>(0, end - start)});
  for (int64_t i = start; i < end; ++i) out.ints.push_back((*dims)[i]);
  return Values{std::move(out)};
}

}  // namespace

bool IsFloatElemType(int32_t t) {
  return t == TensorProto::FLOAT || t == TensorProto::DOUBLE ||
         t == TensorProto::FLOAT16 || t == TensorProto::BFLOAT16;
}

bool IsIntegerElemType(int32_t t) {
  switch (t) {
    case TensorProto::INT64:
    case TensorProto::INT32:
    case TensorProto::INT16:
    case TensorProto::INT8:
    case TensorProto::UINT64:
    case TensorProto::UINT32:
    case TensorProto::UINT16:
    case TensorProto::UINT8:
    case TensorProto::BOOL:
      return true;
    default:
      return false;
  }
}

bool TensorValue::IsFloat() const { return IsFloatElemType(elem_type); }

int64_t TensorValue::NumElements() const {
  return static_cast<int64_t>(IsFloat() ? floats.size() : ints.size());
}

double TensorValue::AsDouble(int64_t i) const {
  return IsFloat() ? floats[i] : static_cast<double>(ints[i]);
}

int64_t TensorValue::AsInt(int64_t i) const {
  if (!IsFloat()) return ints[i];
  double d = floats[i];
  if (!std::isfinite(d) || std::fabs(d) > 9.2e18) return 0;
  return static_cast<int64_t>(d);
}

std::optional<TensorValue> ValueFromTensor(const onnx::TensorProto& t) {
  if (t.data_location() == TensorProto::EXTERNAL) return std::nullopt;
  std::vector<int64_t> dims(t.dims().begin(), t.dims().end());
  const int64_t n = Product(dims);
  if (n < 0 || n > kMaxValueElems) return std::nullopt;
  TensorValue v = Empty(t.data_type(), dims);
  const std::string& raw = t.raw_data();
  auto from_raw = [&](auto sample) -> bool {
    using T = decltype(sample);
    if (raw.size() != static_cast<size_t>(n) * sizeof(T)) return false;
    for (int64_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, raw.data() + i * sizeof(T), sizeof(T));
      if constexpr (std::is_floating_point_v<T>) {
        v.floats.push_back(static_cast<double>(x));
      } else {
        v.ints.push_back(static_cast<int64_t>(x));
      }
    }
    return true;
  };
  const bool has_raw = t.has_raw_data();
  // Raw bytes of `sample`'s type, else the typed field when it holds n values.
  auto read = [&](auto sample, const auto& field, auto* out) -> bool {
    if (has_raw) return from_raw(sample);
    if (static_cast<int64_t>(field.size()) != n) return false;
    out->assign(field.begin(), field.end());
    return true;
  };
  bool ok = false;
  switch (t.data_type()) {
    case TensorProto::INT64: ok = read(int64_t{}, t.int64_data(), &v.ints); break;
    case TensorProto::INT32: ok = read(int32_t{}, t.int32_data(), &v.ints); break;
    case TensorProto::INT16: ok = read(int16_t{}, t.int32_data(), &v.ints); break;
    case TensorProto::INT8: ok = read(int8_t{}, t.int32_data(), &v.ints); break;
    case TensorProto::UINT16: ok = read(uint16_t{}, t.int32_data(), &v.ints); break;
    case TensorProto::UINT8:
    case TensorProto::BOOL: ok = read(uint8_t{}, t.int32_data(), &v.ints); break;
    case TensorProto::FLOAT: ok = read(float{}, t.float_data(), &v.floats); break;
    case TensorProto::DOUBLE: ok = read(double{}, t.double_data(), &v.floats); break;
    default: break;
  }
  if (!ok) return std::nullopt;
  return v;
}

void ValueToTensor(const TensorValue& v, onnx::TensorProto* t) {
  t->clear_dims();
  for (int64_t d : v.dims) t->add_dims(d);
  t->clear_raw_data();
  t->clear_int64_data();
  t->clear_int32_data();
  t->clear_float_data();
  t->clear_double_data();
  // Stored as INT64 / DOUBLE / FLOAT / INT32 so that every reader sees it.
  switch (v.elem_type) {
    case TensorProto::INT64:
      t->set_data_type(TensorProto::INT64);
      for (int64_t x : v.ints) t->add_int64_data(x);
      break;
    case TensorProto::DOUBLE:
      t->set_data_type(TensorProto::DOUBLE);
      for (double x : v.floats) t->add_double_data(x);
      break;
    case TensorProto::FLOAT:
      t->set_data_type(TensorProto::FLOAT);
      for (double x : v.floats) t->add_float_data(static_cast<float>(x));
      break;
    default:
      t->set_data_type(v.elem_type);
      if (v.IsFloat()) {
        // float16 / bfloat16 bit patterns: not worth encoding; callers
        // never write them back (see IsWritable in onnx_fold.cc).
        for (double x : v.floats) t->add_float_data(static_cast<float>(x));
      } else {
        for (int64_t x : v.ints) t->add_int32_data(static_cast<int32_t>(x));
      }
      break;
  }
}

std::optional<std::vector<TensorValue>> EvaluateNode(
    const onnx::NodeProto& node, int opset,
    const std::vector<const TensorValue*>& in,
    const std::vector<const onnx::TypeProto*>& types) {
  const std::string& op = node.op_type();
  if (op == "Constant") {
    if (const auto* a = Attr(node, "value"); a != nullptr && a->has_t()) {
      std::optional<TensorValue> v = ValueFromTensor(a->t());
      if (!v) return std::nullopt;
      return Values{*v};
    }
    if (const auto* a = Attr(node, "value_int")) {
      TensorValue v = Empty(TensorProto::INT64, {});
      v.ints.push_back(a->i());
      return Values{v};
    }
    if (const auto* a = Attr(node, "value_ints")) {
      TensorValue v = Empty(TensorProto::INT64, {a->ints_size()});
      v.ints.assign(a->ints().begin(), a->ints().end());
      if (!SizeOk(v.dims)) return std::nullopt;
      return Values{v};
    }
    if (const auto* a = Attr(node, "value_float")) {
      TensorValue v = Empty(TensorProto::FLOAT, {});
      v.floats.push_back(a->f());
      return Values{v};
    }
    if (const auto* a = Attr(node, "value_floats")) {
      TensorValue v = Empty(TensorProto::FLOAT, {a->floats_size()});
      v.floats.assign(a->floats().begin(), a->floats().end());
      if (!SizeOk(v.dims)) return std::nullopt;
      return Values{v};
    }
    return std::nullopt;
  }
  // Shape / Size read the type, or the value's dims (initializers have no
  // inferred type).
  if (op == "Shape") {
    return ShapeOf(node, types.empty() ? nullptr : types[0], in.empty() ? nullptr : in[0]);
  }
  if (op == "Size") {
    auto dims = StaticDims(types.empty() ? nullptr : types[0]);
    if (!dims && !in.empty() && in[0] != nullptr) dims = in[0]->dims;
    if (!dims) return std::nullopt;
    int64_t n = 1;
    for (int64_t d : *dims) {
      if (__builtin_mul_overflow(n, d, &n)) return std::nullopt;
    }
    TensorValue v = Empty(TensorProto::INT64, {});
    v.ints.push_back(n);
    return Values{v};
  }
  // Every other op reads its inputs' values: all present ones must be known,
  // except the optional shape inputs that Slice, Squeeze, Unsqueeze and the
  // reductions read themselves.
  if (in.empty() || in[0] == nullptr) return std::nullopt;
  const TensorValue& a = *in[0];
  auto need = [&](size_t n) {
    if (in.size() < n) return false;
    for (size_t i = 0; i < n; ++i) {
      if (in[i] == nullptr) return false;
    }
    return true;
  };
  if (op == "Identity") return Values{a};
  if (op == "Cast") {
    const auto* to = Attr(node, "to");
    if (to == nullptr ||
        !(IsFloatElemType(static_cast<int32_t>(to->i())) ||
          IsIntegerElemType(static_cast<int32_t>(to->i())))) {
      return std::nullopt;
    }
    return Values{CastTo(a, static_cast<int32_t>(to->i()))};
  }
  if (op == "Gather" && need(2)) return Gather(a, *in[1], AttrInt(node, "axis", 0));
  if (op == "Slice") return Slice(node, opset, in);
  if (op == "Concat") return Concat(node, in);
  if (op == "Reshape" && need(2)) return Reshape(node, a, *in[1]);
  if (op == "Flatten") {
    int64_t axis = AttrInt(node, "axis", 1);
    const int64_t rank = static_cast<int64_t>(a.dims.size());
    if (axis < 0) axis += rank;
    if (axis < 0 || axis > rank) return std::nullopt;
    return Reshaped(a, {Product({a.dims.begin(), a.dims.begin() + axis}),
                        Product({a.dims.begin() + axis, a.dims.end()})});
  }
  bool missing = false;
  if (op == "Unsqueeze") {
    auto axes = Axes(node, in, 1, &missing);
    if (!axes) return std::nullopt;
    return Unsqueeze(a, *axes);
  }
  if (op == "Squeeze") {
    auto axes = Axes(node, in, 1, &missing);
    if (missing) return std::nullopt;
    return Squeeze(a, axes);
  }
  if (op == "ReduceProd" || op == "ReduceSum" || op == "ReduceMin" ||
      op == "ReduceMax") {
    // Axes became an input in opset 13 for ReduceSum, 18 for the others.
    auto axes = Axes(node, in, 1, &missing);
    if (missing) return std::nullopt;
    return Reduce(node, a, axes);
  }
  if (op == "Expand" && need(2)) return Expand(a, *in[1]);
  if (op == "Tile" && need(2)) return Tile(a, *in[1]);
  if (op == "Transpose") return Transpose(node, a);
  if (op == "Range" && need(3)) return Range(a, *in[1], *in[2]);
  if (op == "ConstantOfShape") return ConstantOfShape(node, a);
  if (op == "Where" && need(3)) return Where(a, *in[1], *in[2]);
  if (op == "Not") {
    TensorValue out = Empty(TensorProto::BOOL, a.dims);
    for (int64_t i = 0; i < a.NumElements(); ++i)
      out.ints.push_back(a.AsDouble(i) == 0 ? 1 : 0);
    return Values{out};
  }
  if (op == "Neg")
    return Unary(a, [](double x) { return -x; },
                 [](int64_t x) { return x == std::numeric_limits<int64_t>::min() ? x : -x; });
  if (op == "Abs")
    return Unary(a, [](double x) { return std::fabs(x); },
                 [](int64_t x) { return x < 0 && x != std::numeric_limits<int64_t>::min() ? -x : x; });
  if (op == "Floor")
    return Unary(a, [](double x) { return std::floor(x); }, [](int64_t x) { return x; });
  if (op == "Ceil")
    return Unary(a, [](double x) { return std::ceil(x); }, [](int64_t x) { return x; });
  if (op == "Round")
    return Unary(a, [](double x) { return std::nearbyint(x); }, [](int64_t x) { return x; });
  if (op == "Sqrt" && a.IsFloat())
    return Unary(a, [](double x) { return std::sqrt(x); }, [](int64_t x) { return x; });
  if ((op == "Max" || op == "Min") && need(in.size()))
    return Variadic(in, op == "Max");
  if (need(2) && in.size() == 2) return Arithmetic(node, in);
  return std::nullopt;
}

}  // namespace frugal::importers

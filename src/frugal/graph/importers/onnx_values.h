// Known tensor values of an ONNX graph's shape computations. Exported graphs
// compute Reshape targets, Expand shapes, pads and slice bounds with chains
// like Shape -> Gather -> Unsqueeze -> Concat, which ONNX's own inference
// leaves unresolved; this module evaluates such chains on small tensors so
// that the importer can write their results back as initializers.
// Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_IMPORTERS_ONNX_VALUES_H_
#define FRUGAL_GRAPH_IMPORTERS_ONNX_VALUES_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "onnx/onnx_pb.h"

namespace frugal::importers {

// Whether an op's domain is ONNX's default one ("" or "ai.onnx").
inline bool IsDefaultOnnxDomain(const std::string& domain) {
  return domain.empty() || domain == "ai.onnx";
}

// Values larger than this are not tracked: shape computations are small,
// and the bound keeps evaluation cheap on hostile files.
inline constexpr int64_t kMaxValueElems = 4096;

// A small dense tensor. Integer and bool types hold `ints`, floating-point
// types hold `floats`; the other vector is empty.
struct TensorValue {
  int32_t elem_type = onnx::TensorProto::INT64;
  std::vector<int64_t> dims;
  std::vector<int64_t> ints;
  std::vector<double> floats;

  bool IsFloat() const;
  int64_t NumElements() const;
  // Element i as a double / an int64 whatever the storage.
  double AsDouble(int64_t i) const;
  int64_t AsInt(int64_t i) const;
};

bool IsFloatElemType(int32_t elem_type);
bool IsIntegerElemType(int32_t elem_type);  // integer types and bool

// The value of an initializer or Constant tensor; nullopt when it has no
// data (stripped weights), an unsupported type or over kMaxValueElems.
std::optional<TensorValue> ValueFromTensor(const onnx::TensorProto& t);

// Writes `v` into `t` (name untouched).
void ValueToTensor(const TensorValue& v, onnx::TensorProto* t);

// Evaluates `node` (default domain, `opset`) when every input it reads is
// known. `inputs[i]` is input i's value or nullptr (unknown or omitted);
// `input_types[i]` its inferred type or nullptr (Shape / Size read only
// the type). Returns one value per output, or nullopt when the op is not a
// shape computation frugal evaluates or an input is missing.
std::optional<std::vector<TensorValue>> EvaluateNode(
    const onnx::NodeProto& node, int opset,
    const std::vector<const TensorValue*>& inputs,
    const std::vector<const onnx::TypeProto*>& input_types);

}  // namespace frugal::importers

#endif  // FRUGAL_GRAPH_IMPORTERS_ONNX_VALUES_H_

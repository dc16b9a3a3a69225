// Tensor metadata carried on ops: name, element type, static shape and role.
// Values only (no data). Plain structs; thread-compatible.
#ifndef FRUGAL_GRAPH_TENSOR_H_
#define FRUGAL_GRAPH_TENSOR_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace frugal {

enum class DType {
  kFloat32,
  kFloat16,
  kBFloat16,
  kFloat64,
  kInt64,
  kInt32,
  kInt8,
  kUInt8,
  kBool,
  kUnknown,
};

// Bytes per element; 4 for kUnknown (the common case, fp32).
int64_t DTypeBytes(DType t);
// fp32, fp16, bf16, fp64: the types precision changes act on.
bool IsFloatDType(DType t);
const char* DTypeName(DType t);
// Parses DTypeName's output; false when unknown.
bool ParseDType(std::string_view name, DType* out);

enum class TensorRole {
  kActivation,  // produced by an op or fed as graph input
  kParameter,   // trainable weight (counts as a parameter)
  kBuffer,      // persistent but not trained (BatchNorm running statistics)
  kConstant,    // constant folded into the graph (shapes, indices)
};

const char* TensorRoleName(TensorRole r);
bool ParseTensorRole(std::string_view name, TensorRole* out);

struct TensorInfo {
  std::string name;
  DType dtype = DType::kFloat32;
  std::vector<int64_t> shape;  // all dims known and >= 0; {} = scalar
  TensorRole role = TensorRole::kActivation;

  // Product of dims (1 for a scalar). REQUIRES: dims >= 0.
  int64_t NumElements() const;
  int64_t Bytes() const { return NumElements() * DTypeBytes(dtype); }
  bool IsWeight() const {
    return role == TensorRole::kParameter || role == TensorRole::kBuffer;
  }
  bool operator==(const TensorInfo&) const = default;
};

// "[1, 3, 224, 224]".
std::string ShapeString(const std::vector<int64_t>& shape);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_TENSOR_H_

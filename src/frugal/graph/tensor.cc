#include "frugal/graph/tensor.h"

#include "frugal/base/enum_names.h"

namespace frugal {
namespace {

struct DTypeRow {
  DType type;
  const char* name;
  int64_t bytes;
};

constexpr DTypeRow kDTypes[] = {
    {DType::kFloat32, "float32", 4}, {DType::kFloat16, "float16", 2},
    {DType::kBFloat16, "bfloat16", 2}, {DType::kFloat64, "float64", 8},
    {DType::kInt64, "int64", 8},     {DType::kInt32, "int32", 4},
    {DType::kInt8, "int8", 1},       {DType::kUInt8, "uint8", 1},
    {DType::kBool, "bool", 1},       {DType::kUnknown, "unknown", 4},
};

constexpr const char* kRoleNames[] = {"activation", "parameter", "buffer",
                                      "constant"};

}  // namespace

int64_t DTypeBytes(DType t) {
  for (const auto& row : kDTypes) {
    if (row.type == t) return row.bytes;
  }
  return 4;
}

bool IsFloatDType(DType t) {
  return t == DType::kFloat32 || t == DType::kFloat16 || t == DType::kBFloat16 ||
         t == DType::kFloat64;
}

const char* DTypeName(DType t) {
  for (const auto& row : kDTypes) {
    if (row.type == t) return row.name;
  }
  return "unknown";
}

bool ParseDType(std::string_view name, DType* out) {
  for (const auto& row : kDTypes) {
    if (name == row.name) {
      *out = row.type;
      return true;
    }
  }
  return false;
}

const char* TensorRoleName(TensorRole r) { return EnumName(kRoleNames, r); }

bool ParseTensorRole(std::string_view name, TensorRole* out) {
  return ParseEnumName(name, kRoleNames, out);
}

int64_t TensorInfo::NumElements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::string ShapeString(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(shape[i]);
  }
  return s + "]";
}

}  // namespace frugal

#include "frugal/graph/op_kind.h"

#include <initializer_list>

namespace frugal {
namespace {

using C = OpCategory;

struct KindRow {
  OpKind kind;
  const char* name;
  OpCategory category;
  // ONNX op types importing as this kind (up to 12).
  const char* onnx[12];
  // FLOPs per element, forward and input-gradient. Conventions: one FLOP per
  // add / multiply / compare / divide, one per transcendental (exp, erf,
  // tanh, sqrt), so sigmoid = neg + exp + add + div = 4.
  double fwd_flops_per_elem;
  double bwd_flops_per_elem;
};

constexpr KindRow kKinds[] = {
    {OpKind::kConv, "conv", C::kCompute, {"Conv"}, 0, 0},
    {OpKind::kMatMul, "matmul", C::kCompute, {"Gemm"}, 0, 0},
    {OpKind::kBatchMatMul, "bmm", C::kCompute, {"MatMul", "MatMulInteger"}, 0, 0},
    {OpKind::kConvTranspose, "conv_transpose", C::kCompute, {"ConvTranspose"}, 0, 0},
    {OpKind::kRnn, "rnn", C::kCompute, {"LSTM", "GRU", "RNN"}, 0, 0},
    {OpKind::kEinsum, "einsum", C::kCompute, {"Einsum"}, 0, 0},
    // Add / Sub backward only routes the gradient (and negates for Sub).
    {OpKind::kAdd, "add", C::kElementwise, {"Add", "Sum", "Mean"}, 1, 0},
    {OpKind::kSub, "sub", C::kElementwise, {"Sub"}, 1, 1},
    // d(ab) = g*b, g*a.
    {OpKind::kMul, "mul", C::kElementwise, {"Mul"}, 1, 2},
    // d(a/b) = g/b, -g*a/b^2.
    {OpKind::kDiv, "div", C::kElementwise, {"Div"}, 1, 4},
    // d(x^p) = g*p*x^(p-1).
    {OpKind::kPow, "pow", C::kElementwise, {"Pow"}, 1, 3},
    {OpKind::kSqrt, "sqrt", C::kElementwise, {"Sqrt"}, 1, 2},
    {OpKind::kExp, "exp", C::kElementwise, {"Exp"}, 1, 1},
    {OpKind::kNeg, "neg", C::kElementwise, {"Neg"}, 1, 1},
    // Backward is a masked select: one compare per element.
    {OpKind::kRelu, "relu", C::kElementwise, {"Relu", "ThresholdedRelu"}, 1, 1},
    // 0.5x(1+erf(x/sqrt2)): div, erf, add, mul, mul.
    {OpKind::kGelu, "gelu", C::kElementwise, {"Gelu"}, 5, 8},
    // 0.5x(1+tanh(c(x+0.044715x^3))): 3 mul (x^3, coef), add, mul, tanh,
    // add, mul, mul.
    {OpKind::kGeluTanh, "gelu_tanh", C::kElementwise, {}, 9, 14},
    // g*(1-y^2).
    {OpKind::kTanh, "tanh", C::kElementwise, {"Tanh"}, 1, 3},
    // g*y*(1-y).
    {OpKind::kSigmoid, "sigmoid", C::kElementwise, {"Sigmoid"}, 4, 3},
    // x*sigmoid(x).
    {OpKind::kSilu, "silu", C::kElementwise, {}, 5, 8},
    {OpKind::kErf, "erf", C::kElementwise, {"Erf"}, 1, 4},
    {OpKind::kClip, "clip", C::kElementwise, {"Clip", "Max", "Min"}, 2, 2},
    {OpKind::kLeakyRelu, "leaky_relu", C::kElementwise, {"LeakyRelu"}, 2, 2},
    {OpKind::kHardSwish, "hardswish", C::kElementwise, {"HardSwish"}, 4, 4},
    {OpKind::kHardSigmoid, "hardsigmoid", C::kElementwise, {"HardSigmoid"}, 3, 2},
    {OpKind::kWhere, "where", C::kElementwise, {"Where"}, 1, 1},
    {OpKind::kCast, "cast", C::kElementwise, {"Cast", "CastLike"}, 0, 0},
    // x < 0 ? a*x : x: compare, multiply; backward the same plus, for the
    // slope, the reduction counted with norm parameters.
    {OpKind::kPRelu, "prelu", C::kElementwise, {"PRelu"}, 2, 2},
    // x < 0 ? a*(e^x - 1) : x: compare, exp, sub, mul; g*(y + a) or g.
    {OpKind::kElu, "elu", C::kElementwise, {"Elu"}, 4, 3},
    // Elu scaled by lambda.
    {OpKind::kSelu, "selu", C::kElementwise, {"Selu"}, 5, 4},
    // max(0,x) + min(0, a*(e^(x/a) - 1)): div, exp, sub, mul, compare.
    {OpKind::kCelu, "celu", C::kElementwise, {"Celu"}, 5, 4},
    // x*tanh(ln(1+e^x)): exp, add, log, tanh, mul; backward recomputes
    // sigmoid (4) and tanh(softplus) (4), then g*(t + x*s*(1-t^2)) (6).
    {OpKind::kMish, "mish", C::kElementwise, {"Mish"}, 5, 14},
    // ln(1+e^x): exp, add, log; backward g*sigmoid(x).
    {OpKind::kSoftplus, "softplus", C::kElementwise, {"Softplus"}, 3, 5},
    // x/(1+|x|); backward g/(1+|x|)^2.
    {OpKind::kSoftsign, "softsign", C::kElementwise, {"Softsign"}, 3, 4},
    // g*sign(x).
    {OpKind::kAbs, "abs", C::kElementwise, {"Abs"}, 1, 2},
    // g/x.
    {OpKind::kLog, "log", C::kElementwise, {"Log"}, 1, 1},
    // -g*y^2.
    {OpKind::kReciprocal, "reciprocal", C::kElementwise, {"Reciprocal"}, 1, 3},
    // g*cos(x) or -g*sin(x).
    {OpKind::kSinCos, "sin_cos", C::kElementwise, {"Sin", "Cos"}, 1, 2},
    // The other trigonometric and hyperbolic functions; backward: the
    // derivative (e.g. 1/sqrt(1-x^2): mul, sub, sqrt, div) times g.
    {OpKind::kTrig, "trig", C::kElementwise,
     {"Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}, 1, 5},
    // a - b*floor(a/b): div, floor, mul, sub; the gradient of a is g.
    {OpKind::kMod, "mod", C::kElementwise, {"Mod"}, 4, 0},
    // One add per element; backward is the reverse cumulative sum.
    {OpKind::kCumSum, "cumsum", C::kElementwise, {"CumSum"}, 1, 1},
    // A select by the element's position; backward masks the gradient.
    {OpKind::kTrilu, "trilu", C::kElementwise, {"Trilu"}, 1, 1},
    {OpKind::kRound, "round", C::kElementwise, {"Floor", "Ceil", "Round", "Sign"}, 1, 0},
    {OpKind::kCompare, "compare", C::kElementwise,
     {"Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual", "Not", "And", "Or", "Xor",
      "IsNaN", "IsInf"}, 1, 0},
    // Random numbers, one per output element: no gradient.
    {OpKind::kRandom, "random", C::kElementwise,
     {"RandomUniformLike", "RandomNormalLike", "RandomUniform", "RandomNormal", "Bernoulli"}, 1, 0},
    // max, sub, exp, sum, div per element; backward y*(g - sum(g*y)): 4.
    {OpKind::kSoftmax, "softmax", C::kNormalization, {"Softmax", "LogSoftmax"}, 5, 4},
    // mean (1), sub (1), square+sum (2), normalise (2), scale+shift (2).
    {OpKind::kLayerNorm, "layernorm", C::kNormalization, {"LayerNormalization"}, 8, 12},
    // square+sum (2), normalise (1), scale (1).
    {OpKind::kRmsNorm, "rmsnorm", C::kNormalization, {"SimplifiedLayerNormalization"}, 4, 8},
    {OpKind::kBatchNorm, "batchnorm", C::kNormalization, {"BatchNormalization"}, 8, 12},
    {OpKind::kInstanceNorm, "instancenorm", C::kNormalization, {"InstanceNormalization"}, 8, 12},
    {OpKind::kGroupNorm, "groupnorm", C::kNormalization, {"GroupNormalization"}, 8, 12},
    {OpKind::kMaxPool, "maxpool", C::kPooling, {"MaxPool"}, 0, 0},
    {OpKind::kAvgPool, "avgpool", C::kPooling, {"AveragePool"}, 0, 0},
    {OpKind::kGlobalAvgPool, "global_avgpool", C::kPooling, {"GlobalAveragePool"}, 0, 0},
    {OpKind::kGlobalMaxPool, "global_maxpool", C::kPooling, {"GlobalMaxPool"}, 0, 0},
    {OpKind::kResize, "resize", C::kPooling, {"Resize", "Upsample"}, 0, 0},
    // Reductions: FLOPs per input element; the gradient is broadcast back.
    {OpKind::kReduceMean, "reduce_mean", C::kReduction, {"ReduceMean"}, 1, 1},
    {OpKind::kReduceSum, "reduce_sum", C::kReduction, {"ReduceSum", "ReduceLogSum"}, 1, 1},
    {OpKind::kReduceMax, "reduce_max", C::kReduction, {"ReduceMax", "ReduceMin", "ArgMax", "ArgMin"}, 1, 1},
    // g*y/x.
    {OpKind::kReduceProd, "reduce_prod", C::kReduction, {"ReduceProd"}, 1, 2},
    // abs or square, then add; backward g*sign(x), 2*g*x or g*x/y.
    {OpKind::kReduceNorm, "reduce_norm", C::kReduction, {"ReduceL1", "ReduceL2", "ReduceSumSquare"}, 2, 2},
    // max, sub, exp, add; backward g*exp(x - y).
    {OpKind::kReduceLogSumExp, "reduce_logsumexp", C::kReduction, {"ReduceLogSumExp"}, 4, 3},
    // Selection: one compare per input element, plus sorting the k results
    // (op_cost.cc); backward scatters the k gradients.
    {OpKind::kTopK, "topk", C::kReduction, {"TopK"}, 1, 0},
    {OpKind::kNonZero, "nonzero", C::kReduction, {"NonZero"}, 1, 0},
    {OpKind::kEmbedding, "embedding", C::kLookup, {}, 0, 0},
    {OpKind::kGather, "gather", C::kLookup, {"Gather", "GatherElements", "GatherND"}, 0, 0},
    {OpKind::kConcat, "concat", C::kDataMovement, {"Concat"}, 0, 0},
    {OpKind::kSplit, "split", C::kDataMovement, {"Split"}, 0, 0},
    {OpKind::kReshape, "reshape", C::kDataMovement, {"Reshape"}, 0, 0},
    {OpKind::kTranspose, "transpose", C::kDataMovement, {"Transpose", "DepthToSpace", "SpaceToDepth"}, 0, 0},
    {OpKind::kFlatten, "flatten", C::kDataMovement, {"Flatten"}, 0, 0},
    {OpKind::kSqueeze, "squeeze", C::kDataMovement, {"Squeeze"}, 0, 0},
    {OpKind::kUnsqueeze, "unsqueeze", C::kDataMovement, {"Unsqueeze"}, 0, 0},
    {OpKind::kSlice, "slice", C::kDataMovement, {"Slice"}, 0, 0},
    {OpKind::kExpand, "expand", C::kDataMovement, {"Expand", "Tile"}, 0, 0},
    {OpKind::kPad, "pad", C::kDataMovement, {"Pad"}, 0, 0},
    {OpKind::kIdentity, "identity", C::kDataMovement, {"Identity"}, 0, 0},
    {OpKind::kScatter, "scatter", C::kDataMovement, {"ScatterND", "ScatterElements", "Scatter"}, 0, 0},
    {OpKind::kOneHot, "onehot", C::kDataMovement, {"OneHot"}, 0, 0},
    // Mask generation (compare) and scale: 2; backward: mask multiply.
    {OpKind::kDropout, "dropout", C::kRegularization, {"Dropout"}, 2, 1},
    {OpKind::kShape, "shape", C::kMeta, {"Shape", "Size", "ConstantOfShape", "Range"}, 0, 0},
    {OpKind::kConstant, "constant", C::kMeta, {"Constant"}, 0, 0},
    // log-softmax (5) + pick + mean; backward softmax - onehot (2).
    {OpKind::kCrossEntropy, "cross_entropy", C::kLoss, {"SoftmaxCrossEntropyLoss"}, 6, 2},
    // Per row (not per element, op_cost.cc): pick, weight, reduce (2);
    // backward writes -w at the target (1).
    {OpKind::kNllLoss, "nll_loss", C::kLoss, {"NegativeLogLikelihoodLoss"}, 2, 1},
    {OpKind::kSgd, "sgd", C::kOptimizer, {}, 0, 0},
    {OpKind::kSgdMomentum, "sgd_momentum", C::kOptimizer, {}, 0, 0},
    {OpKind::kAdam, "adam", C::kOptimizer, {}, 0, 0},
    {OpKind::kProfiled, "profiled", C::kProfiled, {}, 0, 0},
    {OpKind::kUnknown, "unknown", C::kUnknown, {}, 0, 0},
};

constexpr const char* kCategoryNames[] = {
    "compute",      "elementwise",    "normalization", "pooling",
    "reduction",    "lookup",         "data_movement", "regularization",
    "meta",         "loss",           "optimizer",     "profiled",
    "unknown"};

const KindRow& Row(OpKind kind) {
  for (const auto& row : kKinds) {
    if (row.kind == kind) return row;
  }
  return kKinds[sizeof(kKinds) / sizeof(kKinds[0]) - 1];
}

}  // namespace

const char* OpKindName(OpKind kind) { return Row(kind).name; }

bool ParseOpKind(std::string_view name, OpKind* out) {
  for (const auto& row : kKinds) {
    if (name == row.name) {
      *out = row.kind;
      return true;
    }
  }
  return false;
}

OpCategory CategoryOf(OpKind kind) { return Row(kind).category; }

const char* OpCategoryName(OpCategory c) {
  return kCategoryNames[static_cast<int>(c)];
}

OpKind OpKindFromOnnx(std::string_view op_type) {
  for (const auto& row : kKinds) {
    for (const char* t : row.onnx) {
      if (t != nullptr && op_type == t) return row.kind;
    }
  }
  return OpKind::kUnknown;
}

double ForwardFlopsPerElement(OpKind kind) { return Row(kind).fwd_flops_per_elem; }
double BackwardFlopsPerElement(OpKind kind) { return Row(kind).bwd_flops_per_elem; }

bool LaterInputsMayBeTrained(OpKind kind) {
  switch (kind) {
    case OpKind::kClip: case OpKind::kDropout: case OpKind::kResize:
    case OpKind::kPad: case OpKind::kTopK: case OpKind::kCumSum:
    case OpKind::kTrilu: case OpKind::kOneHot: case OpKind::kExpand:
    case OpKind::kReshape: case OpKind::kSlice: case OpKind::kSqueeze:
    case OpKind::kUnsqueeze: case OpKind::kSplit: case OpKind::kGather:
    case OpKind::kWhere: case OpKind::kCompare: case OpKind::kRandom:
      return false;
    default:
      return CategoryOf(kind) != OpCategory::kReduction &&
             CategoryOf(kind) != OpCategory::kPooling;
  }
}

bool RunsOnTensorCores(OpKind k) {
  switch (k) {
    case OpKind::kConv: case OpKind::kConvTranspose: case OpKind::kMatMul:
    case OpKind::kBatchMatMul: case OpKind::kEinsum: case OpKind::kRnn:
      return true;
    default:
      return false;
  }
}

}  // namespace frugal

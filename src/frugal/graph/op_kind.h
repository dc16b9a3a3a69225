// Operator kinds: the closed set of operations frugal prices exactly, plus
// kUnknown (kept with bytes-only cost) and kProfiled (ops whose time and
// memory were measured, e.g. from dnn-partitioning graphs). One table in
// op_kind.cc maps each kind to its name, category, the ONNX op types that
// import as it, and the per-element FLOP counts of elementwise kinds.
// Read-only data; thread-safe.
#ifndef FRUGAL_GRAPH_OP_KIND_H_
#define FRUGAL_GRAPH_OP_KIND_H_

#include <string_view>

namespace frugal {

enum class OpKind {
  // Compute-heavy.
  kConv,         // 1D/2D/3D convolution, groups, stride, dilation, padding
  kMatMul,       // activation x weight (Gemm, Linear, MatMul with a weight)
  kBatchMatMul,  // activation x activation (attention scores, context)
  kConvTranspose,  // 1D/2D/3D transposed convolution (weight [C_in, C_out/g, k...])
  kRnn,            // LSTM / GRU / RNN over the whole sequence, both directions
  kEinsum,         // einsum: FLOPs from the parsed equation
  // Elementwise.
  kAdd, kSub, kMul, kDiv, kPow, kSqrt, kExp, kNeg, kRelu, kGelu, kGeluTanh,
  kTanh, kSigmoid, kSilu, kErf, kClip, kLeakyRelu, kHardSwish, kHardSigmoid,
  kWhere, kCast,
  kPRelu, kElu, kSelu, kCelu, kMish, kSoftplus, kSoftsign, kAbs, kLog,
  kReciprocal, kSinCos, kTrig, kMod, kCumSum, kTrilu,
  kRound,    // Floor / Ceil / Round / Sign: no gradient
  kCompare,  // comparisons and logic ops on booleans: no gradient
  kRandom,   // random tensors: no gradient
  // Normalisation.
  kSoftmax, kLayerNorm, kRmsNorm, kBatchNorm, kInstanceNorm, kGroupNorm,
  // Pooling.
  kMaxPool, kAvgPool, kGlobalAvgPool, kGlobalMaxPool,
  kResize,  // Resize / Upsample: nearest, linear, cubic
  // Reductions.
  kReduceMean, kReduceSum, kReduceMax, kReduceProd,
  kReduceNorm,       // ReduceL1 / ReduceL2 / ReduceSumSquare
  kReduceLogSumExp,
  kTopK,
  kNonZero,
  // Lookups.
  kEmbedding,  // Gather from a trainable table
  kGather,     // Gather from an activation
  // Data movement: zero FLOPs, but bytes.
  kConcat, kSplit, kReshape, kTranspose, kFlatten, kSqueeze, kUnsqueeze,
  kSlice, kExpand, kPad, kIdentity,
  kScatter,  // ScatterND / ScatterElements (reduction = add/mul/max/min costs FLOPs)
  kOneHot,
  kDropout,
  kShape,     // shape computations: no cost at run time
  kConstant,
  // Loss.
  kCrossEntropy,
  kNllLoss,  // NegativeLogLikelihoodLoss: costs per row, not per element
  // Optimizer updates (training graphs).
  kSgd,
  kSgdMomentum,
  kAdam,
  // Measured op with no formula (dnn-partitioning graphs).
  kProfiled,
  kUnknown,
};

enum class OpCategory {
  kCompute,
  kElementwise,
  kNormalization,
  kPooling,
  kReduction,
  kLookup,
  kDataMovement,
  kRegularization,
  kMeta,
  kLoss,
  kOptimizer,
  kProfiled,
  kUnknown,
};

const char* OpKindName(OpKind kind);
// Parses OpKindName's output; false when unknown.
bool ParseOpKind(std::string_view name, OpKind* out);
OpCategory CategoryOf(OpKind kind);
// Kinds that run on tensor cores when their math is reduced (TF32, FP16,
// BF16): GEMMs and convolutions (einsum lowers to bmm, cuDNN RNNs to GEMMs).
bool RunsOnTensorCores(OpKind kind);
const char* OpCategoryName(OpCategory c);

// The kind an ONNX op type imports as; kUnknown when frugal has no formula.
// Gather maps to kGather; importers turn it into kEmbedding when the table is
// a parameter.
OpKind OpKindFromOnnx(std::string_view op_type);

// FLOPs per output element of an elementwise / activation kind (per input
// element of a normalisation, loss or reduction) in the forward pass, and per
// element of its input gradient in the backward pass (documented in
// docs/graph.md). 0 for other categories.
double ForwardFlopsPerElement(OpKind kind);
double BackwardFlopsPerElement(OpKind kind);

// False for kinds whose inputs after the first are never trained (Resize's
// scales, Clip's bounds, Pad's value, Dropout's ratio): a float initializer
// there is a constant, not a parameter.
bool LaterInputsMayBeTrained(OpKind kind);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_OP_KIND_H_

// Op-timing data sets: measured latencies of single GPU operators, as the
// NeuSight op timings under ../shared/data/perf/neusight-op-timings and the
// profile CSVs frugal writes itself. One CSV holds one op type; its header
// starts with `OPName, Latency` (or `Latency (ms)`), `Device`, then the op's
// shape columns (see OpShape); any other column (kernel name, grid dims,
// warps per SM) is ignored, so predictions never need profiler output.
// Loading is stateless; a Dataset is a plain value (thread-compatible).
#ifndef FRUGAL_PERF_DATASET_H_
#define FRUGAL_PERF_DATASET_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/base/rng.h"
#include "frugal/base/status.h"

namespace frugal {

// The op types measured in the data (CSV `OPName`). Heavy ops first.
enum class PerfOp {
  kConv,
  kLinear,
  kBmm,
  kSoftmax,
  kLayerNorm,
  kAdd,
  kMul,
  kDiv,
  kPow,
  kRelu,
  kGelu,
  kTanh,
  // Binary ops with a scalar second operand (x + 2, x * s, ...): one tensor
  // read, one written. CSV `addu`, `mulu`, `divu`, `powu`.
  kAddScalar,
  kMulScalar,
  kDivScalar,
  kPowScalar,
};
inline constexpr int kNumPerfOps = 16;

// "conv", "linear", "bmm", "softmax", "ln", "add", ...; the CSV spelling.
const char* PerfOpName(PerfOp op);
// Parses PerfOpName's output (also "layernorm"); false when unknown.
bool ParsePerfOp(std::string_view name, PerfOp* out);
// Conv, linear and bmm: the ops whose time grows with a product of dims.
bool IsHeavyPerfOp(PerfOp op);
// addu, mulu, divu, powu.
bool IsScalarOperandPerfOp(PerfOp op);
// add -> addu, mul -> mulu, div -> divu, pow -> powu; other ops unchanged.
PerfOp ScalarFormOf(PerfOp op);
// The inverse: addu -> add, ...; other ops unchanged.
PerfOp BinaryFormOf(PerfOp op);
// All kinds, in enum order.
const std::vector<PerfOp>& AllPerfOps();

// The shape of one op invocation, fp32, as the CSV columns give it.
//  conv:    x[b, in_channels, image, image] * w[out_channels, in_channels,
//           kernel, kernel], stride, padding (square images and kernels).
//  linear:  out[m, n] = in[m, k] · w[k, n]   (b = 1)
//  bmm:     out[b, m, n] = a[b, m, k] · c[b, k, n]
//  softmax, ln: b rows of length h (normalised over h).
//  add, mul, div, pow: two [b, h] tensors in, one out; relu, gelu, tanh and
//           the scalar forms addu, mulu, divu, powu: one.
struct OpShape {
  PerfOp op = PerfOp::kAdd;
  int64_t b = 1;
  int64_t m = 0, n = 0, k = 0;  // linear, bmm
  int64_t h = 0;                // softmax, ln, elementwise
  int64_t in_channels = 0, out_channels = 0, kernel = 0, image = 0;  // conv
  int64_t stride = 1, padding = 0;                                   // conv

  // InvalidArgument naming the bad dimension when a dim the op uses is < 1
  // (padding < 0), or a conv's output would be empty.
  Status Validate() const;
  // Conv output height/width; 0 for other ops.
  int64_t ConvOutSize() const;
  // "conv b=8 cin=64 cout=64 k=3 img=56 s=1 p=1", "bmm b=12 m=128 n=128 k=64".
  std::string ToString() const;
  bool operator==(const OpShape&) const = default;
};

struct OpSample {
  OpShape shape;
  std::string device;  // as the CSV's Device column spells it
  double latency_ms = 0;
  int32_t file = 0;  // index into Dataset::files
  int32_t line = 0;  // 1-based line of the row in that file
};

struct Dataset {
  std::vector<OpSample> samples;
  std::vector<std::string> files;  // the CSVs the samples came from
  // Distinct devices, in order of first appearance.
  std::vector<std::string> Devices() const;
  // "PATH:LINE" of a sample, for error messages.
  std::string Where(const OpSample& s) const;
};

// Reads one timing CSV. Errors are InvalidArgument "PATH:LINE: problem" for a
// missing required column, a row with the wrong number of fields, a latency
// or dimension that is not a positive finite number, an unknown OPName, and
// for a file with no data rows; NotFound when the file does not exist.
Result<Dataset> LoadTimingCsv(const std::string& path);

// Reads every *.csv under `path` (recursively, in sorted path order, so the
// result is deterministic), or `path` itself when it is a file. The first
// error stops the load.
Result<Dataset> LoadTimingData(const std::string& path);

// $FRUGAL_PERF_DATA if set, else the shared op timings folder
// (FRUGAL_SHARED_DATA/perf: NeuSight's random shapes in neusight-op-timings
// and the transformer-layer shapes in neusight-op-timings-test).
std::string DefaultTimingDataPath();

// Indices 0..n-1 in a seeded random order (Fisher-Yates).
std::vector<size_t> ShuffledIndices(size_t n, uint64_t seed);

}  // namespace frugal

#endif  // FRUGAL_PERF_DATASET_H_

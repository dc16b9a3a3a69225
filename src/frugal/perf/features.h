// What the op-time models see: the work of an op shape (FLOPs, bytes,
// tensor sizes), the GPU figures from the hardware catalog, the analytic
// roofline time, the feature vector of the learned model, and the mapping
// from a graph Op (forward or backward) to the measured op shape that prices
// it. Stateless functions; thread-safe.
#ifndef FRUGAL_PERF_FEATURES_H_
#define FRUGAL_PERF_FEATURES_H_

#include <optional>
#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/dataset.h"

namespace frugal {

// The catalog figures the models use, in base units.
struct GpuFeatures {
  std::string name;       // canonical catalog name
  double peak_flops = 0;  // FP32 FLOP/s on CUDA cores
  double mem_bw_bps = 0;  // bytes/s
  double sm_count = 0;    // imputed from FLOP/s and clock when absent
  double l2_bytes = 0;    // 0 when the catalog does not state it
  double clock_mhz = 0;   // imputed (1500) when absent
  double tdp_w = 0;       // board power; 0 when the catalog does not state it
  // A public benchmark's FP32 GEMM FLOP/s (catalog
  // benchmarked_fp32_gemm_tflops); 0 when the catalog has none.
  double benchmarked_flops = 0;
  // Where it has none: FP32 peak x the fraction of peak the benchmark
  // reached on the same chip's other boards (catalog
  // same_chip_benchmarked_fraction); 0 when none was benchmarked either.
  double same_chip_benchmarked_flops = 0;
  std::string architecture;  // "volta", ...
  std::string memory_type;   // "HBM2", "GDDR6", ...; empty when not stated
};

// InvalidArgument naming the GPU when it has no fp32_tflops figure.
Result<GpuFeatures> GpuFeaturesOf(const GpuSpec& gpu);

// The work of one op, fp32 (4 bytes per element).
struct OpWork {
  double flops = 0;         // multiply-add = 2
  double input_elems = 0;   // activation inputs
  double weight_elems = 0;  // conv / linear weights
  double output_elems = 0;
  double bytes = 0;  // 4 * (inputs + weights + outputs)
};
OpWork WorkOf(const OpShape& shape);

// Launch overhead added by the roofline model, ms.
inline constexpr double kLaunchOverheadMs = 0.005;

// max(FLOPs / peak, bytes / bandwidth) in ms, without launch overhead.
double RooflineCoreMs(double flops, double bytes, const GpuFeatures& gpu);
// RooflineCoreMs of the shape's work plus kLaunchOverheadMs.
double RooflineMs(const OpShape& shape, const GpuFeatures& gpu);

// The learned model's features of (shape, gpu); the same length and order
// for every op type. GPU figures enter relative to the op (times on the
// roofline, waves of tiles over SMs, bytes over L2): absolute figures let
// trees memorise the five measured GPUs and transfer worse to others. The
// one exception is board power (TDP and FP32 FLOP/s per watt), for conv,
// linear and bmm only and missing when the catalog lacks it: it bounds the
// sustained clock of small cards, which no other figure shows.
// FeatureNames() names them; kFeatureVersion changes whenever either changes,
// and saved models record it.
inline constexpr int kFeatureVersion = 5;
std::vector<float> LearnedFeatures(const OpShape& shape,
                                   const GpuFeatures& gpu);
const std::vector<std::string>& FeatureNames();

// Kepler, Maxwell and Pascal (catalog `architecture`): the GPUs before
// Volta's memory controller and cuBLAS's volta_* kernel family.
bool PreVolta(const std::string& architecture);

// What a GPU's kernels sustain, base units: FP32 FLOP/s of large GEMMs and
// bytes/s of large elementwise launches (the efficiency model's scale).
struct SustainedRates {
  double flops = 0;
  double bw_bps = 0;
};

// The efficiency model's features of (shape, gpu): the same length and
// order for every op type, and only relative to the GPU — times on the
// sustained roofline, arithmetic intensity over the sustained ridge point,
// bytes over L2, and, for the tile shapes cuBLAS / cuDNN use (64x64,
// 128x64, 128x128, 256x128), the wave count over the SMs and the last
// wave's fill, and for softmax and layer norm one row's bytes over the L2
// per SM. A feature an op type never has is NaN there (its booster leaves
// the column out). EfficiencyFeatureNames() names them (kFeatureVersion).
std::vector<float> EfficiencyFeatures(const OpShape& shape,
                                      const GpuFeatures& gpu,
                                      const SustainedRates& rates);
const std::vector<std::string>& EfficiencyFeatureNames();

// How a graph op maps onto measured op shapes.
struct OpQuery {
  // The shape that prices the op, with `repeat` launches of it; absent when
  // no measured op type covers the op (the caller falls back to roofline).
  std::optional<OpShape> shape;
  int64_t repeat = 1;
  // One line: "conv backward-data as forward conv", "no data for Exp".
  std::string basis;
};

// Maps a validated graph op. Forward conv (2-D, group 1), MatMul,
// BatchMatMul, Softmax, LayerNorm, Add/Sub, Mul, Div, Pow, Relu, Gelu,
// GeluTanh and Tanh map to their measured op. Backward conv / matmul /
// batch-matmul gradients map to the forward conv or GEMM of equal FLOPs
// (data gradient: the transposed product; weight gradient: the product
// reducing over the batch); backward elementwise ops map to `mul` over
// their gradient outputs (memory-bound: two reads and one write per
// element). Everything else (backward softmax / layer norm, grouped or
// non-2-D conv, other kinds) has no shape.
OpQuery QueryForOp(const Op& op);

}  // namespace frugal

#endif  // FRUGAL_PERF_FEATURES_H_

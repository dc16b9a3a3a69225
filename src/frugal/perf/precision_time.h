// Op times under reduced precision. The op-time models were fitted on fp32
// CUDA-core timings, so a half-precision or TF32 op is priced from its fp32
// prediction by the ratio of its two rooflines:
//
//   t = t_fp32 * roofline_new / roofline_fp32,  never below min(t_fp32, kLaunchOverheadMs)
//   roofline_fp32 = max(FLOPs / FP32 peak, bytes at fp32 / bandwidth)
//   roofline_new  = max(FLOPs / peak_new,  bytes at the op's dtypes / bandwidth)
//
// peak_new is the catalog's tensor-core figure (fp16 / bf16 / tf32
// _tensor_tflops) for a GEMM / conv whose math is reduced (attrs "math" set
// by plan/precision.h, or half activation inputs), else the FP32 peak (a
// memory-bound op gains only its byte ratio; fp16 on a GPU without tensor
// cores gains only bytes, with a note in the basis). Roofline-fallback ops
// were already priced at their own bytes; only their compute is rescaled.
// The fp32 model's efficiency (achieved / roofline) carries over unchanged:
// the documented assumption (docs/predict.md, "Precision"). Stateless;
// thread-safe.
#ifndef FRUGAL_PERF_PRECISION_TIME_H_
#define FRUGAL_PERF_PRECISION_TIME_H_

#include <string>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// The reduced math an op runs in: "tf32", "fp16", "bf16", or "" (fp32 /
// not a GEMM / conv).
std::string ReducedMathOf(const Op& op);

// One op's rescaled time, ms (the formula above). Peaks in FLOP/s, bytes/s.
double ScaleOpTimeMs(double t_fp32_ms, double flops, double bytes_fp32, double bytes_new,
                     double peak_fp32, double peak_new, double bw_bps);

// Rescales `ops` (PredictOps' per-op times for `graph` on `gpu`, fp32) for
// the dtypes and math modes of the graph's ops, appending what was done to
// each changed op's basis. Measured and no-kernel ops are left alone. A
// graph entirely in fp32 is unchanged. InvalidArgument when the GPU lacks an
// FP32 figure and an op needs rescaling.
Status ApplyPrecisionTimes(const OpGraph& graph, const GpuSpec& gpu,
                           std::vector<OpTimePrediction>* ops);

}  // namespace frugal

#endif  // FRUGAL_PERF_PRECISION_TIME_H_

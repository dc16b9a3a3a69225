// Numeric precision of a training or serving job, and what it does to a
// forward graph's tensors: PyTorch autocast's CUDA op lists for amp-fp16 /
// amp-bf16, model.to(dtype) for fp16 / bf16, and the TF32 math mode.
//
// ApplyPrecision rewrites dtypes and recomputes each op's bytes read /
// written, parameter bytes and edge bytes, so memory (EstimateStepMemory)
// and communication follow; GEMM / conv ops get attrs.strings["math"]
// ("tf32", "fp16", "bf16"), which backward ops inherit and the perf layer
// (perf/precision_time.h) prices on tensor cores. Apply it to a FORWARD
// graph, before BuildTrainingGraph. Stateless; thread-safe.
#ifndef FRUGAL_PLAN_PRECISION_H_
#define FRUGAL_PLAN_PRECISION_H_

#include <optional>
#include <string>
#include <string_view>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"

namespace frugal {

enum class Precision {
  kFp32,     // everything float32 on CUDA cores
  kTf32,     // float32 tensors; GEMM / conv on TF32 tensor cores
  kFp16,     // model.to(torch.float16): every float tensor half
  kBf16,     // model.to(torch.bfloat16)
  kAmpFp16,  // torch.autocast(dtype=float16): fp32 parameters, op lists
  kAmpBf16,  // torch.autocast(dtype=bfloat16)
};

// fp32 tf32 fp16 bf16 amp-fp16 amp-bf16.
const char* PrecisionName(Precision p);
bool ParsePrecision(std::string_view name, Precision* out);
// "fp32, tf32, fp16, bf16, amp-fp16, amp-bf16" for messages and --help.
std::string PrecisionList();

bool IsAmp(Precision p);
// The reduced float type of a half precision (fp16 / amp-fp16: kFloat16;
// bf16 / amp-bf16: kBFloat16); kFloat32 for fp32 and tf32.
DType HalfDTypeOf(Precision p);
// The value of attrs.strings["math"] ApplyPrecision sets on GEMM / conv
// ops: "tf32", "fp16", "bf16"; empty for fp32.
const char* MathModeOf(Precision p);

// REQUIRES: forward is a validated forward graph. InvalidArgument when it
// has backward / optimizer ops (apply precision before deriving training),
// or measured op times or profiled ops (measured at one precision).
// kFp32 returns the graph unchanged.
Result<OpGraph> ApplyPrecision(const OpGraph& forward, Precision p);

// Whether `gpu` runs `p`: InvalidArgument "--precision bf16: <GPU> has no
// bf16 tensor cores" for bf16 / amp-bf16 without a bf16 tensor figure. OK
// with a note (fp16 without tensor cores is priced at the FP32 rate with
// halved bytes; tf32 without TF32 tensor cores runs as fp32), else OK and
// an empty note. `note` may be null.
Status CheckPrecisionSupported(const GpuSpec& gpu, Precision p, std::string* note);

// The dense peak GEMMs run at under `p` on `gpu`, TFLOP/s (the denominator
// of MFU): the tensor-core figure of the precision's math type where the GPU
// has one, else its FP32 peak; nullopt without either.
std::optional<double> PeakTflops(const GpuSpec& gpu, Precision p);

// The precision a graph's own dtypes describe (an ONNX model exported in
// half, a graph converted with --precision): its GEMMs / convs in fp16 or
// bf16 with parameters of that type -> fp16 / bf16, with fp32 parameters ->
// amp-fp16 / amp-bf16; else fp32 (TF32 leaves no trace in dtypes). A graph
// without GEMMs is judged by all its float tensors. InvalidArgument for
// float64 math (no catalog figure prices it) or fp16 mixed with bf16.
Result<Precision> GraphPrecision(const OpGraph& g);

// The default precision for an HF config's torch_dtype ("float16",
// "bfloat16", "float32"); nullopt for an absent or other value. Training
// maps a half dtype to autocast (amp-fp16 / amp-bf16, what HF Trainer's
// fp16 / bf16 flags do: fp32 master weights), inference to the pure half
// type (the checkpoint loaded in its dtype).
std::optional<Precision> PrecisionForTorchDtype(std::string_view torch_dtype, bool training);

}  // namespace frugal

#endif  // FRUGAL_PLAN_PRECISION_H_

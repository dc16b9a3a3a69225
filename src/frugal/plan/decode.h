// Cost of LLM generation on one GPU (or a tensor-parallel group): the prefill of a P-token prompt and G
// generated tokens decoded one at a time over a growing KV cache, priced op
// by op (PredictOps) on graphs the caller builds for (batch, seq,
// kv_cache_len): the CLI builds them with the HF importer
// (ImportOptions::kv_cache_len); later transforms (precision, tensor
// parallelism) can wrap that callback.
//
// The schedule is transformers' generate(): the prefill runs the prompt
// (seq P, no cache) and its last logits give the first token, so the time to
// first token is the prefill; each further token is one decode step (seq 1)
// over the cache of everything before it: G - 1 steps at cache lengths
// P .. P + G - 2. A decode step's time is affine in the cache length to
// first order (weights GEMVs constant, attention and cache copy linear), so
// `cache_samples` lengths spread evenly over that range (both ends
// included) are priced and the steps between them interpolated linearly;
// ranges no longer than `cache_samples` are priced step by step.
//
// Memory: the weights, the KV cache sized for all P + G tokens (what
// serving engines reserve per sequence; the last token's K / V, which are
// never computed, make one token of difference) and the live activations
// of the step: the larger of the prefill (its activations plus the cache it
// has written) and the last decode step. `fits` leaves `reserved_bytes` for
// the CUDA context, as `predict` does; the largest batch that fits is
// searched (doubling, then bisection on the memory of graphs built at each
// batch), not guessed from a formula. Stateless; thread-safe when the
// callback is.
#ifndef FRUGAL_PLAN_DECODE_H_
#define FRUGAL_PLAN_DECODE_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "frugal/base/status.h"
#include "frugal/graph/op_graph.h"
#include "frugal/hw/catalog.h"
#include "frugal/perf/iteration.h"
#include "frugal/perf/op_time_model.h"

namespace frugal {

// The forward graph of one step: `seq` new tokens per sequence over
// `kv_cache_len` cached ones (0: none), for `batch` sequences. Cache
// tensors are ops with attrs "kv_cache" = 1: input 0 the cache read, output
// 0 the cache grown.
using DecodeGraphFn =
    std::function<Result<OpGraph>(int64_t batch, int64_t seq, int64_t kv_cache_len)>;

struct DecodeOptions {
  int64_t batch = 1;         // sequences generated together. REQUIRES: >= 1
  int64_t prompt_len = 0;    // P, tokens of each prompt. REQUIRES: >= 1
  int64_t generate_len = 0;  // G, tokens generated per sequence. REQUIRES: >= 1
  int cache_samples = 9;     // decode steps priced exactly. REQUIRES: >= 2
  bool fused = false;        // price torch.compile-style fusion (PredictOps)
  double reserved_bytes = 1.0 * 1024 * 1024 * 1024;  // as IterationOptions
  // Tensor parallelism over `tp` GPUs: the graphs are one GPU's
  // (tensor_parallel.h) and each step adds its blocking all-reduces (ops
  // marked kTpAllReduceBytesAttr) as rings over `tp_links`.
  int tp = 1;
  CommLinks tp_links;
  bool search_max_batch = true;
  int64_t max_batch_limit = int64_t{1} << 20;  // the search stops here
};

struct DecodeStepTime {
  int64_t cache_len = 0;
  double ms = 0;
};

struct DecodePrediction {
  double prefill_ms = 0;  // = time to first token
  double ttft_ms = 0;
  int64_t decode_steps = 0;      // G - 1
  double decode_first_ms = 0;    // the step at cache length P
  double decode_last_ms = 0;     // the step at P + G - 2 (P when G = 1)
  double decode_mean_ms = 0;     // over the G - 1 steps (the first when G = 1)
  double decode_total_ms = 0;    // sum over the G - 1 steps
  double total_ms = 0;           // prefill + decode_total
  double tokens_per_s = 0;       // batch * G / total
  double decode_tokens_per_s = 0;  // batch / decode_mean: the steady rate
  int64_t kv_cache_bytes = 0;         // at P + G tokens, from the graph
  int64_t kv_cache_bytes_per_token = 0;  // of one sequence, all layers
  int64_t weights_bytes = 0;
  int64_t prefill_memory_bytes = 0;
  int64_t decode_memory_bytes = 0;
  int64_t peak_memory_bytes = 0;
  double gpu_memory_bytes = 0;
  bool fits = false;
  int64_t max_batch = 0;  // largest batch that fits (0: none; -1: not searched)
  bool max_batch_capped = false;  // the search reached max_batch_limit
  int fallback_ops = 0;  // ops priced by the roofline, prefill + one step
  std::vector<DecodeStepTime> samples;  // the decode steps priced
};

// InvalidArgument for P, G or batch < 1 (naming --prompt, --generate,
// --batch), for P + G beyond the model's positions (the importer's limit,
// prefixed with the flags); the callback's error for models that cannot
// decode; FailedPrecondition for a step graph without cache ops.
Result<DecodePrediction> PredictDecode(const DecodeGraphFn& build, const OpTimeModel& model,
                                       const GpuSpec& gpu, const DecodeOptions& options);

// The memory of generation at `batch` as PredictDecode counts it (peak of
// prefill and last decode step), bytes.
Result<int64_t> DecodeMemoryBytes(const DecodeGraphFn& build, int64_t batch,
                                  int64_t prompt_len, int64_t generate_len);

// Sum over the cache lengths first .. last of the linear interpolation
// through `samples` (sorted by cache_len, first and last among them).
double InterpolatedSum(const std::vector<DecodeStepTime>& samples);

}  // namespace frugal

#endif  // FRUGAL_PLAN_DECODE_H_

#include "frugal/plan/decode.h"

#include "frugal/plan/tensor_parallel.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "frugal/graph/training.h"
#include "frugal/perf/iteration.h"

namespace frugal {
namespace {

struct CacheBytes {
  int ops = 0;
  int64_t past = 0;   // read: the cache before the step
  int64_t grown = 0;  // written: the cache after it
};

CacheBytes CacheOf(const OpGraph& g) {
  CacheBytes c;
  for (const Op& op : g.ops) {
    if (op.attrs.GetInt("kv_cache", 0) != 1 || op.inputs.empty() || op.outputs.empty()) continue;
    ++c.ops;
    c.past += op.inputs[0].Bytes();
    c.grown += op.outputs[0].Bytes();
  }
  return c;
}

std::string Tokens(const DecodeOptions& o) {
  return "--prompt " + std::to_string(o.prompt_len) + " + --generate " +
         std::to_string(o.generate_len) + " = " +
         std::to_string(o.prompt_len + o.generate_len) + " tokens: ";
}

// The graphs memory is read from at one batch.
struct MemoryGraphs {
  OpGraph prefill;
  OpGraph last;  // a step over P + G - 1 cached tokens: the cache at P + G
};

Result<MemoryGraphs> BuildMemoryGraphs(const DecodeGraphFn& build, int64_t batch, int64_t p,
                                       int64_t g) {
  MemoryGraphs m;
  FRUGAL_ASSIGN_OR_RETURN(m.prefill, build(batch, p, 0));
  FRUGAL_ASSIGN_OR_RETURN(m.last, build(batch, 1, p + g - 1));
  return m;
}

struct Memory {
  int64_t prefill = 0, decode = 0, kv = 0, kv_per_token = 0, weights = 0;
  int64_t Peak() const { return std::max(prefill, decode); }
};

Result<Memory> MemoryOf(const MemoryGraphs& m, int64_t batch, int64_t p, int64_t g) {
  Memory r;
  const CacheBytes last = CacheOf(m.last);
  if (last.ops == 0) {
    return FailedPrecondition("the model's step graph has no KV cache ops: it cannot be priced "
                              "as cached generation");
  }
  r.kv = last.grown;
  // The cache is linear in the tokens it holds: P + G of them here.
  r.kv_per_token = r.kv / (batch * (p + g));
  const StepMemory pre = EstimateStepMemory(InferenceGraph(m.prefill));
  const StepMemory dec = EstimateStepMemory(InferenceGraph(m.last));
  // The prefill's keys and values stay in the cache after their layer: add
  // the P tokens of cache it has written by its end.
  r.prefill = pre.total_bytes + r.kv / (p + g) * p;
  r.decode = dec.total_bytes;
  r.weights = dec.breakdown.param_bytes;
  return r;
}

double GpuBytes(const GpuSpec& gpu) { return gpu.mem_gib * 1024.0 * 1024 * 1024; }

bool Fits(int64_t bytes, const GpuSpec& gpu, double reserved) {
  return static_cast<double>(bytes) + reserved <= GpuBytes(gpu);
}

struct StepCost {
  double ms = 0;
  int fallback = 0;
};

Result<StepCost> PriceGraph(const OpTimeModel& model, const OpGraph& g, const GpuSpec& gpu,
                            const DecodeOptions& o) {
  FRUGAL_ASSIGN_OR_RETURN(std::vector<OpTimePrediction> ops,
                          PredictOps(model, InferenceGraph(g), gpu, o.fused));
  StepCost c;
  for (const OpTimePrediction& t : ops) {
    c.ms += t.time_ms;
    c.fallback += t.fallback ? 1 : 0;
  }
  if (o.tp > 1) {
    for (const Op& op : g.ops) {
      auto it = op.attrs.floats.find(kTpAllReduceBytesAttr);
      if (it != op.attrs.floats.end()) c.ms += RingAllReduceMs(it->second, o.tp, o.tp_links);
    }
  }
  return c;
}

// Cache lengths to price: every one of first .. last when there are at most
// `k`, else k spread evenly with both ends.
std::vector<int64_t> SampleLengths(int64_t first, int64_t last, int k) {
  std::vector<int64_t> out;
  const int64_t n = last - first + 1;
  if (n <= k) {
    for (int64_t l = first; l <= last; ++l) out.push_back(l);
    return out;
  }
  for (int i = 0; i < k; ++i) {
    const int64_t l = first + static_cast<int64_t>(std::llround(
                                  static_cast<double>(i) * static_cast<double>(n - 1) / (k - 1)));
    if (out.empty() || l != out.back()) out.push_back(l);
  }
  return out;
}

Status CheckOptions(const DecodeOptions& o) {
  if (o.prompt_len < 1) {
    return InvalidArgument("--prompt must be at least 1 token, got " +
                           std::to_string(o.prompt_len));
  }
  if (o.generate_len < 1) {
    return InvalidArgument("--generate must be at least 1 token, got " +
                           std::to_string(o.generate_len));
  }
  if (o.batch < 1) {
    return InvalidArgument("--batch must be at least 1, got " + std::to_string(o.batch));
  }
  if (o.cache_samples < 2) return InvalidArgument("cache_samples must be at least 2");
  return Status::Ok();
}

}  // namespace

double InterpolatedSum(const std::vector<DecodeStepTime>& s) {
  if (s.empty()) return 0;
  double sum = 0;
  for (size_t i = 0; i + 1 < s.size(); ++i) {
    // Steps a.cache_len .. b.cache_len - 1 of the segment; b is the next's first.
    const DecodeStepTime& a = s[i];
    const DecodeStepTime& b = s[i + 1];
    const double n = static_cast<double>(b.cache_len - a.cache_len);
    // sum_{j=0}^{n-1} a + (b - a) j / n = n a + (b - a)(n - 1) / 2.
    sum += n * a.ms + (b.ms - a.ms) * (n - 1) / 2;
  }
  return sum + s.back().ms;
}

Result<int64_t> DecodeMemoryBytes(const DecodeGraphFn& build, int64_t batch, int64_t prompt_len,
                                  int64_t generate_len) {
  FRUGAL_ASSIGN_OR_RETURN(MemoryGraphs g, BuildMemoryGraphs(build, batch, prompt_len, generate_len));
  FRUGAL_ASSIGN_OR_RETURN(Memory m, MemoryOf(g, batch, prompt_len, generate_len));
  return m.Peak();
}

Result<DecodePrediction> PredictDecode(const DecodeGraphFn& build, const OpTimeModel& model,
                                       const GpuSpec& gpu, const DecodeOptions& o) {
  FRUGAL_RETURN_IF_ERROR(CheckOptions(o));
  const int64_t p = o.prompt_len, g = o.generate_len, b = o.batch;
  // A one-token step over a one-token cache: the model's own refusal (an
  // encoder) comes before any length is blamed.
  {
    FRUGAL_ASSIGN_OR_RETURN(OpGraph probe, build(1, 1, 1));
    if (CacheOf(probe).ops == 0) {
      return FailedPrecondition("the model's step graph has no KV cache ops: it cannot be "
                                "priced as cached generation");
    }
  }
  MemoryGraphs graphs;
  {
    Result<OpGraph> pre = build(b, p, 0);
    if (!pre.ok()) return pre.status().WithPrefix("--prompt " + std::to_string(p));
    graphs.prefill = std::move(pre).value();
    Result<OpGraph> last = build(b, 1, p + g - 1);
    if (!last.ok()) {
      return Status(last.status().code(), Tokens(o) + last.status().message());
    }
    graphs.last = std::move(last).value();
  }
  FRUGAL_ASSIGN_OR_RETURN(Memory mem, MemoryOf(graphs, b, p, g));

  DecodePrediction r;
  FRUGAL_ASSIGN_OR_RETURN(StepCost pre, PriceGraph(model, graphs.prefill, gpu, o));
  r.prefill_ms = r.ttft_ms = pre.ms;
  r.fallback_ops = pre.fallback;
  r.decode_steps = g - 1;
  const int64_t first = p, last = p + std::max<int64_t>(g - 2, 0);
  for (int64_t len : SampleLengths(first, last, o.cache_samples)) {
    FRUGAL_ASSIGN_OR_RETURN(OpGraph step, build(b, 1, len));
    FRUGAL_ASSIGN_OR_RETURN(StepCost c, PriceGraph(model, step, gpu, o));
    if (r.samples.empty()) r.fallback_ops += c.fallback;
    r.samples.push_back({len, c.ms});
  }
  r.decode_first_ms = r.samples.front().ms;
  r.decode_last_ms = r.samples.back().ms;
  if (r.decode_steps > 0) {
    r.decode_total_ms = InterpolatedSum(r.samples);
    r.decode_mean_ms = r.decode_total_ms / static_cast<double>(r.decode_steps);
  } else {
    r.decode_mean_ms = r.decode_first_ms;
  }
  r.total_ms = r.prefill_ms + r.decode_total_ms;
  r.tokens_per_s = r.total_ms > 0 ? static_cast<double>(b * g) / r.total_ms * 1000.0 : 0;
  r.decode_tokens_per_s =
      r.decode_mean_ms > 0 ? static_cast<double>(b) / r.decode_mean_ms * 1000.0 : 0;
  r.kv_cache_bytes = mem.kv;
  r.kv_cache_bytes_per_token = mem.kv_per_token;
  r.weights_bytes = mem.weights;
  r.prefill_memory_bytes = mem.prefill;
  r.decode_memory_bytes = mem.decode;
  r.peak_memory_bytes = mem.Peak();
  r.gpu_memory_bytes = GpuBytes(gpu);
  r.fits = Fits(r.peak_memory_bytes, gpu, o.reserved_bytes);

  r.max_batch = -1;
  if (o.search_max_batch) {
    // Memory grows with the batch: double while it fits, then bisect.
    // A batch the importer refuses (tensors absurdly large) does not fit.
    auto fits_at = [&](int64_t batch) -> Result<bool> {
      if (batch == b) return r.fits;
      Result<MemoryGraphs> mg = BuildMemoryGraphs(build, batch, p, g);
      if (!mg.ok()) return false;
      FRUGAL_ASSIGN_OR_RETURN(Memory m, MemoryOf(*mg, batch, p, g));
      return Fits(m.Peak(), gpu, o.reserved_bytes);
    };
    FRUGAL_ASSIGN_OR_RETURN(bool one, fits_at(1));
    if (!one) {
      r.max_batch = 0;
    } else {
      int64_t lo = 1, hi = 0;  // lo fits; hi (when > 0) does not
      while (hi == 0) {
        const int64_t next = std::min(lo * 2, o.max_batch_limit);
        if (next == lo) break;
        FRUGAL_ASSIGN_OR_RETURN(bool ok, fits_at(next));
        if (ok) {
          lo = next;
        } else {
          hi = next;
        }
      }
      if (hi == 0) {
        r.max_batch_capped = true;
      } else {
        while (hi - lo > 1) {
          const int64_t mid = lo + (hi - lo) / 2;
          FRUGAL_ASSIGN_OR_RETURN(bool ok, fits_at(mid));
          (ok ? lo : hi) = mid;
        }
      }
      r.max_batch = lo;
    }
  }
  return r;
}

}  // namespace frugal

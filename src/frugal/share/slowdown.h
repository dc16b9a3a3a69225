// How much a job slows down when it shares a GPU: the SlowdownModel
// interface and the analytic default. A model answers "how fast does `self`
// run, relative to alone on the whole GPU, when it shares `gpu` with
// `other` under self's mechanism and share". Speeds are of the GPU work of
// one step (an inference batch or a training iteration): 1 = as fast as
// alone on the whole GPU, 0.5 = twice as long. A fitted model (the
// interference model fit on measured pairs) plugs in through the same
// interface. Implementations are immutable; thread-safe.
//
// The analytic model (AnalyticSlowdown), from Ceer's per-op predictions:
//   step time alone = compute_ms (compute-bound ops) + memory_ms
//   (memory-bound ops), as classified by each op's roofline.
//   MPS, SM share p:   compute_ms / p + memory_ms * (1 + u_o * m_o)
//   time slicing:      (compute_ms + memory_ms) * (1 + u_o) + u_o * slice_ms
//   MIG, g/7 compute slices and k/8 memory slices:
//                      compute_ms * 7/g + memory_ms * 8/k, no interference
// where u_o is the co-runner's GPU duty (fraction of time it has work on the
// GPU) and m_o its memory-bound fraction: a memory-bound op shares DRAM
// bandwidth with the co-runner's memory-bound ops while both run.
#ifndef FRUGAL_SHARE_SLOWDOWN_H_
#define FRUGAL_SHARE_SLOWDOWN_H_

#include <memory>
#include <span>
#include <string>

#include "frugal/hw/catalog.h"
#include "frugal/share/mechanism.h"

namespace frugal::share {

// What is known of a job before it is co-located.
struct ColoJobInfo {
  std::string family;      // model family: "resnet", "bert", ...
  int64_t batch = 1;
  bool training = false;
  double compute_ms = 0;   // compute-bound part of one step alone on the GPU
  double memory_ms = 0;    // memory-bound part
  double gpu_util = 1;     // duty: fraction of wall time it keeps the GPU busy, [0, 1]
  double mem_bytes = 0;    // device memory it holds
  Mechanism mechanism = Mechanism::kExclusive;
  double share = 1;        // MPS SM share / MIG compute fraction, (0, 1]
  double mem_bw_share = 1; // MIG memory-bandwidth fraction, (0, 1]; else 1

  double solo_ms() const { return compute_ms + memory_ms; }
  double memory_fraction() const {
    const double t = solo_ms();
    return t > 0 ? memory_ms / t : 0;
  }
};

class SlowdownModel {
 public:
  virtual ~SlowdownModel() = default;
  virtual const char* name() const = 0;
  // Speed of self's GPU work with `other` on the same GPU, (0, 1].
  virtual double Speed(const ColoJobInfo& self, const ColoJobInfo& other,
                       const GpuSpec& gpu) const = 0;
  // Speed of self alone under its mechanism and share (an MPS share or a
  // MIG slice still limits it). Default: Speed against an idle co-runner.
  virtual double SpeedAlone(const ColoJobInfo& self, const GpuSpec& gpu) const;
};

struct AnalyticSlowdownOptions {
  // Time-slice length of the CUDA scheduler, ms: a kernel that arrives
  // while the co-runner holds the GPU waits for the rest of its slice.
  // Default 2 ms.
  double slice_ms = 2.0;
};

std::unique_ptr<SlowdownModel> NewAnalyticSlowdown(AnalyticSlowdownOptions options = {});

// Several co-runners as one: duties add (capped at 1), the memory-bound
// fraction is their duty-weighted mean. Lets pairwise models price a GPU
// with more than two jobs.
ColoJobInfo CombineCoRunners(std::span<const ColoJobInfo> others);

// Speed of self among `others` (may be empty) on one GPU.
double ColocatedSpeed(const SlowdownModel& model, const ColoJobInfo& self,
                      std::span<const ColoJobInfo> others, const GpuSpec& gpu);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_SLOWDOWN_H_

// The fitted interference model behind the SlowdownModel interface, so the
// sharing simulator prices a training job's slowdown with what measured
// co-locations say. The model was fit on pairs of training jobs sharing one
// GPU without MPS or MIG (Gavel's pairs), so it answers only that question:
// a training job time-sliced with a co-runner. Every other case (an
// inference batch, an MPS share, a MIG slice) is priced by `fallback`, the
// analytic model, whose terms those mechanisms define. The fitted speed is
// never above the analytic one with an idle co-runner (a share still caps
// it). Immutable; thread-safe.
#ifndef FRUGAL_SHARE_FITTED_SLOWDOWN_H_
#define FRUGAL_SHARE_FITTED_SLOWDOWN_H_

#include <memory>

#include "frugal/share/interference.h"
#include "frugal/share/slowdown.h"

namespace frugal::share {

// REQUIRES: fallback != nullptr.
std::unique_ptr<SlowdownModel> NewFittedSlowdown(InterferenceModel model,
                                                 std::unique_ptr<SlowdownModel> fallback);

// The interference model's view of a job: steps/s alone from its step time,
// duty as SM utilisation percent, memory in GiB, Ceer's compute-bound share.
ColoJob ToColoJob(const ColoJobInfo& j);

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_FITTED_SLOWDOWN_H_

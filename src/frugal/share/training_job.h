// A training job: a model trained at a batch per GPU, arriving at a time and
// needing `duration_s` of training alone on a whole GPU. Its GPU duty
// (gpu_util) is the fraction of an iteration the GPU is busy alone; the rest
// (input pipeline, host work) does not slow down when the GPU is shared.
#ifndef FRUGAL_SHARE_TRAINING_JOB_H_
#define FRUGAL_SHARE_TRAINING_JOB_H_

#include <cstdint>
#include <string>

namespace frugal::share {

struct TrainingJob {
  std::string name;
  std::string model;  // bundled model name or a path
  int64_t batch = 32;
  int64_t seq = 0;         // HF models: sequence length (0: the model's own)
  double arrival_s = 0;
  double duration_s = 3600;  // solo run time on a whole GPU
  double gpu_util = 1.0;     // (0, 1]
};

// Whole-iteration speed of a job whose GPU work runs at `gpu_speed` (0, 1]:
// the host part (1 - gpu_util) is unchanged.
inline double TrainingSpeed(double gpu_util, double gpu_speed) {
  return 1.0 / ((1.0 - gpu_util) + gpu_util / gpu_speed);
}

}  // namespace frugal::share

#endif  // FRUGAL_SHARE_TRAINING_JOB_H_

// `frugal predict MODEL --infer --prompt P --generate G --batch B`: the cost
// of generating G tokens after a P-token prompt on one GPU (prefill / time
// to first token, per-token decode over the growing KV cache, tokens/s,
// KV-cache and total memory, the largest batch that fits), priced by
// plan/decode.h on step graphs the HF importer builds.
#ifndef FRUGAL_TOOLS_FRUGAL_PREDICT_GENERATE_H_
#define FRUGAL_TOOLS_FRUGAL_PREDICT_GENERATE_H_

#include <cstdint>
#include <string>

#include "model_args.h"
#include "plan_args.h"

namespace frugal::cli {

struct GenerateArgs {
  int64_t prompt = 0;    // --prompt; 0 = not given
  int64_t generate = 0;  // --generate; 0 = not given
  bool Requested() const { return prompt > 0 || generate > 0; }
};

// Where predict runs: --gpu / --instance, --gpus, --instances.
struct GenerateTarget {
  std::string gpu;
  std::string instance;
  int gpus = 0;
  int instances = 1;
  PlanFlags plan;  // must stay at its defaults: generation runs on one GPU
};

// The exit code: 0, 1 for a model or value that cannot be priced, 2 for
// flags that do not go together (--prompt without --infer, --seq with
// --prompt, --generate without --prompt, no --batch).
int RunPredictGenerate(const ModelArgs& model, const GenerateArgs& g, const GenerateTarget& t);

}  // namespace frugal::cli

#endif  // FRUGAL_TOOLS_FRUGAL_PREDICT_GENERATE_H_

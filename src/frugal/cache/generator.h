// Beam-like pipeline workload generator. Several pipelines run each day on
// the same raw input: fused stages read their input in chunks, every
// GroupByKey materialises a shuffle (each worker writes one file, every
// worker of the next stage reads a slice of each, then the files are
// deleted), the last stage writes `.temp-beam-*` bundles that are finalised
// by rename into output shards, and training reads the shards for E epochs.
// Stragglers run slower; retried bundles are written, deleted and written
// again. Presets (the table in presets.cc) set the shapes; docs/cache.md
// describes each. Deterministic: same options and seed, same events.
// Stateless; thread-safe.
#ifndef FRUGAL_CACHE_GENERATOR_H_
#define FRUGAL_CACHE_GENERATOR_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "frugal/base/registry.h"
#include "frugal/base/status.h"
#include "frugal/cache/trace_event.h"

namespace frugal::cache {

// One raw input of a pipeline (the join preset has two).
struct RawInput {
  std::string name;      // "images", "events"
  std::string ext;       // "tar", "jsonl.gz", "parquet"
  int shards = 0;
  int64_t shard_bytes = 0;
};

struct PipelineShape {
  std::vector<RawInput> inputs;
  int workers = 32;
  // Bytes each GroupByKey shuffle writes, relative to the stage's input.
  std::vector<double> shuffle_ratios;
  double output_ratio = 1.0;  // output bytes / last stage's input
  int output_shards = 32;
  int epochs = 5;
  int trainers = 8;
  double worker_mbps = 150;   // input each worker processes per second
  double train_mbps = 400;    // training read rate (all trainers)
  int64_t read_chunk_bytes = int64_t{4} << 30;  // reads larger files in chunks
};

// Largest --scale (file sizes stay far from int64 overflow).
inline constexpr double kMaxGeneratorScale = 1e6;
// Default bound on a generated trace: every event is held in memory (about
// 250 bytes each, measured) before it is sorted and written.
inline constexpr int64_t kMaxGeneratedEvents = 10'000'000;

struct GeneratorOptions {
  std::string preset = "image";
  int pipelines = 3;     // run concurrently, staggered by stagger_s
  int days = 4;          // daily re-runs on the same raw data
  double scale = 1.0;    // multiplies every file size
  double straggler_prob = 0.05;  // a worker runs 2-4x slower
  double retry_prob = 0.03;      // an output bundle is written twice
  int64_t stagger_s = 2 * 3600;  // 0..86400
  uint64_t seed = 1;
  // GenerateTrace refuses, before generating, a trace with more events.
  int64_t max_events = kMaxGeneratedEvents;
};

using PresetFactory = PipelineShape (*)();
// The preset table: image, text, join.
std::span<const RegistryRow<PresetFactory>> Presets();

// Events sorted by time. InvalidArgument for an unknown preset, a count or
// scale out of range, probabilities outside [0, 1], or a trace that would
// have more than options.max_events events (known up front, without
// generating it). Every read is of a live file: created (or raw input) and
// not yet deleted, at every scale.
Result<std::vector<TraceEvent>> GenerateTrace(const GeneratorOptions& options);

// The exact number of events GenerateTrace(options) returns, computed
// without storing them (time linear in the number of files, not events).
// InvalidArgument for an unknown preset.
Result<int64_t> CountTraceEvents(const GeneratorOptions& options);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_GENERATOR_H_

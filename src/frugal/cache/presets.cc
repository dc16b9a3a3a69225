// The generator's presets; docs/cache.md explains where each shape comes
// from.
#include <array>

#include "frugal/cache/generator.h"

namespace frugal::cache {
namespace {

constexpr int64_t kMiB = 1 << 20;

struct InputSpec {
  const char* name = nullptr;  // nullptr: no input
  const char* ext = nullptr;
  int shards = 0;
  int64_t shard_mib = 0;
};

// A PipelineShape as constant data; trainers and read_chunk_bytes keep
// their defaults.
struct ShapeSpec {
  std::array<InputSpec, 2> inputs;
  int workers;
  std::array<double, 2> shuffle_ratios;  // 0: no shuffle
  double output_ratio;
  int output_shards;
  int epochs;
  double worker_mbps;
  double train_mbps;
};

// TFX-style image pipeline: JPEG tar shards are decoded, deduplicated by
// content hash (one shuffle), resized and written as TFRecords read for
// many epochs.
constexpr ShapeSpec kImage = {{{{"images", "tar", 192, 256}}}, 32, {1.0}, 0.6, 32, 8, 120, 600};

// Text / tokenisation: compressed JSON lines are cleaned, deduplicated
// (shuffle 1, larger than the compressed input), token counts are grouped
// for the vocabulary (shuffle 2, small), and token ids written as shards.
constexpr ShapeSpec kText = {
    {{{"corpus", "jsonl.gz", 96, 384}}}, 24, {1.5, 0.25}, 1.6, 24, 3, 90, 300};

// Feature engineering: a large event log joined with a small user table
// (CoGroupByKey shuffle), then aggregated per user (second shuffle), and
// written as feature shards read for two epochs.
constexpr ShapeSpec kJoin = {{{{"events", "parquet", 160, 192}, {"users", "parquet", 16, 96}}},
                             40, {1.1, 0.4}, 0.5, 40, 2, 160, 500};

template <const ShapeSpec& kSpec>
PipelineShape MakeShape() {
  PipelineShape s;
  for (const InputSpec& in : kSpec.inputs) {
    if (in.name != nullptr) s.inputs.push_back({in.name, in.ext, in.shards, in.shard_mib * kMiB});
  }
  s.workers = kSpec.workers;
  for (double r : kSpec.shuffle_ratios) {
    if (r != 0) s.shuffle_ratios.push_back(r);
  }
  s.output_ratio = kSpec.output_ratio;
  s.output_shards = kSpec.output_shards;
  s.epochs = kSpec.epochs;
  s.worker_mbps = kSpec.worker_mbps;
  s.train_mbps = kSpec.train_mbps;
  return s;
}

constexpr RegistryRow<PresetFactory> kPresets[] = {
    {"image", "TFX-style image pipeline: decode, dedup shuffle, TFRecords, 8 epochs",
     &MakeShape<kImage>},
    {"text", "text tokenisation: dedup and vocabulary shuffles, token shards, 3 epochs",
     &MakeShape<kText>},
    {"join", "feature engineering: events x users join and aggregation shuffles, 2 epochs",
     &MakeShape<kJoin>},
};

}  // namespace

std::span<const RegistryRow<PresetFactory>> Presets() { return kPresets; }

}  // namespace frugal::cache

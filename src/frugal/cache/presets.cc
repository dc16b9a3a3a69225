// The generator's presets; docs/cache.md explains where each shape comes
// from.
#include "frugal/cache/generator.h"

namespace frugal::cache {
namespace {

constexpr int64_t kMiB = 1 << 20;

// TFX-style image pipeline: JPEG tar shards are decoded, deduplicated by
// content hash (one shuffle), resized and written as TFRecords read for
// many epochs.
PipelineShape ImagePipeline() {
  PipelineShape s;
  s.inputs = {{"images", "tar", 192, 256 * kMiB}};
  s.workers = 32;
  s.shuffle_ratios = {1.0};
  s.output_ratio = 0.6;
  s.output_shards = 32;
  s.epochs = 8;
  s.worker_mbps = 120;
  s.train_mbps = 600;
  return s;
}

// Text / tokenisation: compressed JSON lines are cleaned, deduplicated
// (shuffle 1, larger than the compressed input), token counts are grouped
// for the vocabulary (shuffle 2, small), and token ids written as shards.
PipelineShape TextPipeline() {
  PipelineShape s;
  s.inputs = {{"corpus", "jsonl.gz", 96, 384 * kMiB}};
  s.workers = 24;
  s.shuffle_ratios = {1.5, 0.25};
  s.output_ratio = 1.6;
  s.output_shards = 24;
  s.epochs = 3;
  s.worker_mbps = 90;
  s.train_mbps = 300;
  return s;
}

// Feature engineering: a large event log joined with a small user table
// (CoGroupByKey shuffle), then aggregated per user (second shuffle), and
// written as feature shards read for two epochs.
PipelineShape JoinPipeline() {
  PipelineShape s;
  s.inputs = {{"events", "parquet", 160, 192 * kMiB}, {"users", "parquet", 16, 96 * kMiB}};
  s.workers = 40;
  s.shuffle_ratios = {1.1, 0.4};
  s.output_ratio = 0.5;
  s.output_shards = 40;
  s.epochs = 2;
  s.worker_mbps = 160;
  s.train_mbps = 500;
  return s;
}

constexpr RegistryRow<PresetFactory> kPresets[] = {
    {"image", "TFX-style image pipeline: decode, dedup shuffle, TFRecords, 8 epochs",
     &ImagePipeline},
    {"text", "text tokenisation: dedup and vocabulary shuffles, token shards, 3 epochs",
     &TextPipeline},
    {"join", "feature engineering: events x users join and aggregation shuffles, 2 epochs",
     &JoinPipeline},
};

}  // namespace

std::span<const RegistryRow<PresetFactory>> Presets() { return kPresets; }

}  // namespace frugal::cache

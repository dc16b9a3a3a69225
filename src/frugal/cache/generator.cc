#include "frugal/cache/generator.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "frugal/base/rng.h"
#include "frugal/base/units.h"

namespace frugal::cache {
namespace {

// A generated event in memory: the struct, its path's heap buffer, and the
// sort's scratch space; for the size estimate in the limit's message.
constexpr double kBytesPerEvent = 256;

struct File {
  std::string path;
  int64_t size = 0;
};

class Generator {
 public:
  // count_only: Emit only counts, so Count() knows the trace length before
  // any event is stored (same random stream, hence the exact length).
  Generator(const GeneratorOptions& o, PipelineShape shape, bool count_only = false)
      : o_(o), shape_(std::move(shape)), rng_(o.seed * 0x2545F4914F6CDD1Dull + 17),
        count_only_(count_only) {}

  std::vector<TraceEvent> Run() {
    Walk();
    std::stable_sort(events_.begin(), events_.end(),
                     [](const TraceEvent& a, const TraceEvent& b) { return a.time_us < b.time_us; });
    return std::move(events_);
  }

  int64_t Count() {
    Walk();
    return count_;
  }

 private:
  void Walk() {
    std::vector<PipelineState> state(o_.pipelines);
    for (int day = 0; day < o_.days; ++day) {
      for (int p = 0; p < o_.pipelines; ++p) {
        const int64_t start_us = (static_cast<int64_t>(day) * 86400 + p * o_.stagger_s) * 1000000 +
                                 rng_.Below(600) * 1000000;
        RunPipeline(p, day, start_us, &state[p]);
      }
    }
  }

  int64_t Scaled(int64_t bytes) const {
    return std::max<int64_t>(1, std::llround(static_cast<double>(bytes) * o_.scale));
  }
  int64_t DurationUs(int64_t bytes, double mbps) {
    double s = static_cast<double>(bytes) / (mbps * 1e6);
    if (rng_.Uniform() < o_.straggler_prob) s *= 2.0 + 2.0 * rng_.Uniform();
    s *= 0.9 + 0.2 * rng_.Uniform();
    return std::max<int64_t>(1000000, static_cast<int64_t>(s * 1e6));
  }
  void Emit(int64_t t, EventKind kind, const std::string& path, int64_t offset, int64_t length,
            int64_t size, int p, int stage, int worker, const std::string& new_path = "") {
    if (count_only_) {
      ++count_;
      return;
    }
    TraceEvent e;
    e.time_us = t;
    e.kind = kind;
    e.path = path;
    e.new_path = new_path;
    e.offset = offset;
    e.length = length;
    e.size = size;
    e.pipeline = p;
    e.stage = stage;
    e.worker = worker;
    events_.push_back(std::move(e));
  }
  std::string Hex() { return fmt::format("{:016x}", rng_.Next()); }

  // Reads `slices` (path, offset, length, file size) evenly over [t, t + dur).
  struct Slice {
    std::string path;
    int64_t offset, length, size;
  };
  void ReadSlices(const std::vector<Slice>& slices, int64_t t, int64_t dur, int p, int stage,
                  int worker) {
    if (count_only_) {
      for (const Slice& s : slices) {
        count_ += (s.length + shape_.read_chunk_bytes - 1) / shape_.read_chunk_bytes;
      }
      return;
    }
    std::vector<Slice> chunks;
    for (const Slice& s : slices) {
      for (int64_t off = 0; off < s.length; off += shape_.read_chunk_bytes) {
        chunks.push_back({s.path, s.offset + off, std::min(shape_.read_chunk_bytes, s.length - off),
                          s.size});
      }
    }
    for (size_t i = 0; i < chunks.size(); ++i) {
      const int64_t at = t + dur * static_cast<int64_t>(i) / static_cast<int64_t>(chunks.size());
      Emit(at, EventKind::kRead, chunks[i].path, chunks[i].offset, chunks[i].length, chunks[i].size,
           p, stage, worker);
    }
  }

  // What a pipeline's previous run left: its output shards, and when its
  // training read them last.
  struct PipelineState {
    std::vector<File> outputs;
    int64_t last_read_us = 0;
  };

  void RunPipeline(int p, int day, int64_t t, PipelineState* state) {
    const int W = shape_.workers;
    const std::string root = fmt::format("{}/p{}", o_.preset, p);
    // Stage 0 input: the raw shards, the same every day.
    std::vector<std::vector<Slice>> input(W);
    int i = 0;
    for (const RawInput& in : shape_.inputs) {
      for (int k = 0; k < in.shards; ++k, ++i) {
        const int64_t size = Scaled(in.shard_bytes);
        input[i % W].push_back({fmt::format("/data/{}/{}/part-{:05d}-of-{:05d}.{}", root, in.name,
                                            k, in.shards, in.ext),
                                0, size, size});
      }
    }
    const int stages = static_cast<int>(shape_.shuffle_ratios.size());
    const std::string run = fmt::format("run-{}-{}", day, Hex().substr(0, 8));
    std::vector<File> shuffle_prev;
    for (int s = 0; s <= stages; ++s) {
      if (s > 0) {
        input.assign(W, {});
        for (int r = 0; r < W; ++r) {
          for (const File& f : shuffle_prev) {
            const int64_t a = f.size * r / W, b = f.size * (r + 1) / W;
            if (b > a) input[r].push_back({f.path, a, b - a, f.size});
          }
        }
      }
      int64_t end = t;
      std::vector<File> written(W);
      std::vector<int64_t> ends(W);
      for (int w = 0; w < W; ++w) {
        int64_t bytes = 0;
        for (const Slice& sl : input[w]) bytes += sl.length;
        const int64_t dur = DurationUs(bytes, shape_.worker_mbps);
        ReadSlices(input[w], t, dur, p, s, w);
        ends[w] = t + dur;
        end = std::max(end, t + dur);
        if (s < stages) {
          File f{fmt::format("/tmp/beam/{}/{}/shuffle-{}/w{:03d}.shuffle", root, run, s, w),
                 std::max<int64_t>(1, std::llround(static_cast<double>(bytes) * shape_.shuffle_ratios[s]))};
          Emit(t + 1000, EventKind::kCreate, f.path, 0, 0, 0, p, s, w);
          Emit(t + dur, EventKind::kWrite, f.path, 0, f.size, f.size, p, s, w);
          written[w] = f;
        } else {
          const int64_t size =
              std::max<int64_t>(1, std::llround(static_cast<double>(bytes) * shape_.output_ratio));
          if (rng_.Uniform() < o_.retry_prob) {  // a failed bundle attempt
            const std::string bad = fmt::format("/out/{}/.temp-beam-{}/{}.tfrecord", root, Hex(), Hex());
            const int64_t mid = t + dur / 2;
            Emit(t + 1000, EventKind::kCreate, bad, 0, 0, 0, p, s, w);
            Emit(mid, EventKind::kWrite, bad, 0, size / 2, size / 2, p, s, w);
            Emit(mid + 1000, EventKind::kDelete, bad, 0, 0, size / 2, p, s, w);
          }
          File f{fmt::format("/out/{}/.temp-beam-{}/{}.tfrecord", root, Hex(), Hex()), size};
          Emit(t + 2000, EventKind::kCreate, f.path, 0, 0, 0, p, s, w);
          Emit(t + dur, EventKind::kWrite, f.path, 0, size, size, p, s, w);
          written[w] = f;
        }
      }
      // The barrier after the stage: shuffle input of this stage is deleted.
      for (size_t k = 0; k < shuffle_prev.size(); ++k) {
        Emit(end + 1000000 + static_cast<int64_t>(k), EventKind::kDelete, shuffle_prev[k].path, 0, 0,
             shuffle_prev[k].size, p, s, static_cast<int>(k));
      }
      shuffle_prev = written;
      t = end + 2000000;
    }
    // Finalise: rename bundles to output shards; drop yesterday's outputs.
    std::vector<File> finals;
    for (int w = 0; w < W; ++w) {
      File f{fmt::format("/out/{}/day-{:03d}/part-{:05d}-of-{:05d}.tfrecord", root, day, w, W),
             shuffle_prev[w].size};
      Emit(t + w, EventKind::kRename, shuffle_prev[w].path, 0, 0, f.size, p, stages, w, f.path);
      finals.push_back(f);
    }
    // At large scales a run (training included) outlasts a day: yesterday's
    // shards go only once their last epoch has read them.
    const int64_t drop_us = std::max(t, state->last_read_us) + 1000000;
    for (size_t k = 0; k < state->outputs.size(); ++k) {
      Emit(drop_us + static_cast<int64_t>(k), EventKind::kDelete, state->outputs[k].path, 0, 0,
           state->outputs[k].size, p, stages, -1);
    }
    state->outputs = finals;
    // Training reads every shard once per epoch, in a shuffled order.
    int64_t total = 0;
    for (const File& f : finals) total += f.size;
    t += 600 * 1000000;
    const int64_t epoch_us =
        std::max<int64_t>(1000000, static_cast<int64_t>(static_cast<double>(total) / (shape_.train_mbps * 1e6) * 1e6));
    for (int e = 0; e < shape_.epochs; ++e) {
      std::vector<int> order(finals.size());
      for (size_t k = 0; k < order.size(); ++k) order[k] = static_cast<int>(k);
      for (size_t k = order.size(); k > 1; --k) std::swap(order[k - 1], order[rng_.Below(static_cast<int64_t>(k))]);
      std::vector<Slice> slices;
      for (int k : order) slices.push_back({finals[k].path, 0, finals[k].size, finals[k].size});
      ReadSlices(slices, t, epoch_us, p, stages + 1, e % shape_.trainers);
      t += epoch_us + 1000000;
    }
    state->last_read_us = t;
  }

  const GeneratorOptions& o_;
  PipelineShape shape_;
  SplitMix64 rng_;
  bool count_only_;
  int64_t count_ = 0;
  std::vector<TraceEvent> events_;
};

}  // namespace

Result<std::vector<TraceEvent>> GenerateTrace(const GeneratorOptions& o) {
  const auto* row = FindRow(Presets(), o.preset);
  if (row == nullptr) {
    return InvalidArgument("unknown preset '" + o.preset + "' (expected " + RowNames(Presets()) + ")");
  }
  if (o.pipelines < 1 || o.pipelines > 64) return InvalidArgument("--pipelines must be in 1..64");
  if (o.days < 1 || o.days > 365) return InvalidArgument("--days must be in 1..365");
  if (!(o.scale > 0) || o.scale > kMaxGeneratorScale) {
    return InvalidArgument(fmt::format("--scale must be in (0, {:g}], got {:g}", kMaxGeneratorScale,
                                       o.scale));
  }
  if (!(o.straggler_prob >= 0 && o.straggler_prob <= 1) || !(o.retry_prob >= 0 && o.retry_prob <= 1)) {
    return InvalidArgument("probabilities must be in [0, 1]");
  }
  if (o.stagger_s < 0 || o.stagger_s > 86400) {
    return InvalidArgument("the stagger between pipelines must be in 0..86400 seconds");
  }
  if (o.max_events < 1) return InvalidArgument("max_events must be >= 1");
  const int64_t events = CountTraceEvents(o).value();
  if (events > o.max_events) {
    return InvalidArgument(fmt::format(
        "cache gen: the trace would have {} events, over the limit of {} (about {} in memory); "
        "lower --scale (large files are read in 4 GiB chunks), --days or --pipelines",
        events, o.max_events, HumanBytes(static_cast<double>(events) * kBytesPerEvent)));
  }
  Generator g(o, row->factory());
  return g.Run();
}

Result<int64_t> CountTraceEvents(const GeneratorOptions& o) {
  const auto* row = FindRow(Presets(), o.preset);
  if (row == nullptr) {
    return InvalidArgument("unknown preset '" + o.preset + "' (expected " + RowNames(Presets()) + ")");
  }
  return Generator(o, row->factory(), /*count_only=*/true).Count();
}

}  // namespace frugal::cache

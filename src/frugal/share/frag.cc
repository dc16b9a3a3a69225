#include "frugal/share/frag.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace frugal::share {
namespace {

// FGD's PodResource order (CPU, then GPU-milli, GPU count, models).
bool ShapeLess(const PodShape& a, const PodShape& b) {
  return std::tie(a.cpu_milli, a.gpu_milli, a.num_gpu, a.models) <
         std::tie(b.cpu_milli, b.gpu_milli, b.num_gpu, b.models);
}

}  // namespace

std::vector<TypicalPod> BuildTypicalPods(const std::vector<PodSpec>& pods,
                                         const TypicalPodOptions& options) {
  std::vector<std::pair<PodShape, int64_t>> counts;
  {
    std::map<std::tuple<int64_t, int, int, ModelMask>, int64_t> by_shape;
    for (const PodSpec& p : pods) {
      if (!options.include_cpu_pods && p.num_gpu == 0) continue;
      ++by_shape[{p.cpu_milli, p.gpu_milli, p.num_gpu, p.models}];
    }
    for (const auto& [k, n] : by_shape) {
      counts.push_back({PodShape{std::get<0>(k), std::get<1>(k), std::get<2>(k), std::get<3>(k)}, n});
    }
  }
  // Most popular first; equal counts: the larger shape first.
  std::sort(counts.begin(), counts.end(), [](const auto& x, const auto& y) {
    if (x.second != y.second) return x.second > y.second;
    return ShapeLess(y.first, x.first);
  });
  int64_t total = 0;
  for (const auto& c : counts) total += c.second;
  const double expected = options.popularity_threshold * static_cast<double>(total);
  std::vector<TypicalPod> out;
  double covered = 0;
  for (const auto& [shape, n] : counts) {
    if (covered >= expected && !out.empty()) break;
    out.push_back({shape, static_cast<double>(n)});
    covered += static_cast<double>(n);
  }
  for (TypicalPod& t : out) t.weight /= covered;
  return out;
}

std::vector<TypicalPod> BlendTypicalPods(const std::vector<PodSpec>& pods,
                                         const TypicalPodOptions& options) {
  TypicalPodOptions every = options;
  every.popularity_threshold = 1.0;
  std::vector<TypicalPod> out = BuildTypicalPods(pods, every);
  const std::vector<TypicalPod> popular = BuildTypicalPods(pods, options);
  for (TypicalPod& t : out) {
    double w = 0;
    for (const TypicalPod& p : popular) {
      if (p.shape == t.shape) w = p.weight;
    }
    t.weight = 0.5 * t.weight + 0.5 * w;
  }
  return out;
}

std::vector<TypicalPod> TraceShapes(const std::vector<PodSpec>& pods) {
  TypicalPodOptions every;
  every.popularity_threshold = 1.0;
  every.include_cpu_pods = true;
  return BuildTypicalPods(pods, every);
}

int64_t NodeFragMilliFor(const NodeState& node, const PodShape& pod) {
  const int64_t free_total = node.GpuLeftTotal();
  if (free_total == 0) return 0;
  if (pod.gpu_milli == 0) return free_total;  // a CPU pod uses no GPU
  if (!node.ModelAllowed(pod.models)) return free_total;
  if (node.cpu_left < pod.cpu_milli || !node.GpusCanHost(pod)) return free_total;
  int64_t frag = 0;
  for (int i = 0; i < node.num_gpus; ++i) {
    if (node.gpu_left[i] < pod.gpu_milli) frag += node.gpu_left[i];
  }
  return frag;
}

double NodeFragMilli(const NodeState& node, const std::vector<TypicalPod>& typical) {
  double frag = 0;
  for (const TypicalPod& t : typical) {
    frag += t.weight * static_cast<double>(NodeFragMilliFor(node, t.shape));
  }
  return frag;
}

size_t FragMemo::KeyHash::operator()(const Key& k) const {
  uint64_t h = 0x9e3779b97f4a7c15ull;
  for (uint64_t v : {k.a, k.b, k.c, k.d, k.e}) {
    h ^= v + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return static_cast<size_t>(h ^ (h >> 33));
}

double FragMemo::Frag(const NodeState& node) {
  if (node.num_gpus == 0) return 0;
  std::array<int16_t, kMaxGpusPerNode> left = node.gpu_left;
  std::sort(left.begin(), left.begin() + node.num_gpus, std::greater<>());
  Key k;
  k.a = (static_cast<uint64_t>(node.cpu_left) << 16) | (static_cast<uint64_t>(node.model) << 5) |
        static_cast<uint64_t>(node.num_gpus);
  uint64_t* words[4] = {&k.b, &k.c, &k.d, &k.e};
  for (int i = 0; i < node.num_gpus; ++i) {
    *words[i / 4] |= static_cast<uint64_t>(static_cast<uint16_t>(left[i])) << (16 * (i % 4));
  }
  auto it = memo_.find(k);
  if (it != memo_.end()) return it->second;
  const double f = NodeFragMilli(node, *typical_);
  memo_.emplace(k, f);
  return f;
}

double FragMemo::FragAfter(const NodeState& node, const PodShape& pod, GpuSet gpus) {
  NodeState after = node;
  after.cpu_left -= pod.cpu_milli;
  for (int i = 0; i < node.num_gpus; ++i) {
    if ((gpus >> i) & 1u) after.gpu_left[i] = static_cast<int16_t>(after.gpu_left[i] - pod.gpu_milli);
  }
  return Frag(after);
}

}  // namespace frugal::share

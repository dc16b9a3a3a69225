#include "frugal/share/frag_experiment.h"

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <numeric>
#include <thread>
#include <tuple>

#include "frugal/share/placement_registry.h"

namespace frugal::share {
namespace {

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The distinct shapes of the trace; every arrival is one of them.
struct ShapeIndex {
  std::vector<PodShape> shapes;
  std::vector<int> of_pod;
};

ShapeIndex IndexShapes(const std::vector<PodSpec>& pods) {
  ShapeIndex ix;
  std::map<std::tuple<int64_t, int, int, ModelMask>, int> ids;
  ix.of_pod.reserve(pods.size());
  for (const PodSpec& p : pods) {
    auto [it, added] = ids.emplace(std::make_tuple(p.cpu_milli, p.gpu_milli, p.num_gpu, p.models),
                                   static_cast<int>(ix.shapes.size()));
    if (added) ix.shapes.push_back(ShapeOf(p));
    ix.of_pod.push_back(it->second);
  }
  return ix;
}

struct CacheEntry {
  uint32_t version = 0;
  uint32_t epoch = 0;
  NodeScore score;
};

// What every run of one experiment shares: the cluster, the trace, the
// scheduler's behaviour and one worker's fragmentation memos.
struct RunEnv {
  const std::vector<NodeSpec>& nodes;
  const std::vector<PodSpec>& pods;
  const ShapeIndex& shapes;
  int64_t capacity_milli;
  const std::vector<double>& levels;
  double tune;
  bool random_ties;
  const FilterOrder& order;
  FragMemo& memo;
  FragMemo& blend_memo;
  const std::vector<TypicalPod>& trace_shapes;
};

FragRun RunOne(const RunEnv& env, const std::vector<int>& arrivals, PlacementPolicy& policy,
               uint64_t seed, Rollouts* rollouts);

// The experiment's rollouts: the k-th is a fresh arrival sequence by the
// same protocol from the k-th seed of a stream of its own, replayed once
// per (policy, k) for every run and worker: the first worker to claim it
// replays it, the others wait for its answer; a worker asking for several
// replays every one still unclaimed before it waits, so workers that ask for
// the same set replay different ones side by side (a replay asks for no
// rollouts itself, so no wait can close a cycle).
struct RolloutCache {
  std::mutex mu;
  std::map<std::pair<PolicyFactory, int>, std::shared_future<std::vector<double>>> done;
};

class WorkerRollouts final : public Rollouts {
 public:
  WorkerRollouts(RolloutCache& cache, const RunEnv& env) : cache_(cache), env_(env) {}
  std::vector<double> Run(PolicyFactory make, int k) override {
    return RunMany({{make, k}})[0];
  }

  // Replays every key no other worker has claimed, then waits for the rest.
  std::vector<std::vector<double>> RunMany(const std::vector<RolloutKey>& keys) override {
    std::vector<std::shared_future<std::vector<double>>> answers(keys.size());
    for (size_t i = 0; i < keys.size(); ++i) {
      std::promise<std::vector<double>> mine;
      {
        std::lock_guard<std::mutex> lock(cache_.mu);
        auto [it, first] = cache_.done.try_emplace(std::make_pair(keys[i].make, keys[i].k));
        if (first) it->second = mine.get_future().share();
        answers[i] = it->second;
        if (!first) continue;
      }
      mine.set_value(Replay(keys[i].make, keys[i].k));
    }
    std::vector<std::vector<double>> out;
    out.reserve(keys.size());
    for (const auto& a : answers) out.push_back(a.get());
    return out;
  }

 private:
  std::vector<double> Replay(PolicyFactory make, int k) const {
    SplitMix64 stream(0x7011047ull);
    uint64_t seed = 0;
    for (int i = 0; i <= k; ++i) seed = stream.Next();
    const std::vector<int> arrivals = BuildArrivals(env_.pods, env_.capacity_milli, env_.tune, seed);
    auto policy = make();
    return RunOne(env_, arrivals, *policy, seed, nullptr).unallocated_gpu_pct;
  }

  RolloutCache& cache_;
  const RunEnv& env_;
};

FragRun RunOne(const RunEnv& env, const std::vector<int>& arrivals, PlacementPolicy& policy,
               uint64_t seed, Rollouts* rollouts) {
  const std::vector<NodeSpec>& nodes = env.nodes;
  const std::vector<PodSpec>& pods = env.pods;
  const ShapeIndex& shapes = env.shapes;
  const std::vector<double>& levels = env.levels;
  const FilterOrder& order = env.order;
  FragMemo& memo = env.memo;
  const bool random_ties = env.random_ties;
  std::vector<NodeState> state;
  state.reserve(nodes.size());
  for (const NodeSpec& n : nodes) state.push_back(NodeState::FromSpec(n));
  const size_t num_shapes = shapes.shapes.size();
  std::vector<CacheEntry> cache(policy.cacheable() ? state.size() * num_shapes : 0);
  SplitMix64 rng(seed ^ 0x5deece66dull);
  // Its own stream, so that the order's draws leave the policy's alone.
  SplitMix64 order_rng(seed ^ 0x0f11e7ull);
  std::vector<double> keys;  // empty: node-list order
  if (!order.node_list()) FilterOrderKeys(order, state.size(), &order_rng, &keys);
  ScoreContext ctx{&memo, &env.blend_memo, &rng, rollouts, &env.trace_shapes};

  double frag_total = 0;
  for (const NodeState& s : state) frag_total += memo.Frag(s);
  int64_t allocated = 0, arrived = 0;
  const double capacity = static_cast<double>(env.capacity_milli);

  uint32_t epoch = 1;
  double next_observe = 0;

  FragRun run;
  run.seed = seed;
  size_t next_level = 0;
  auto record = [&]() {
    run.unallocated_gpu_pct.push_back(100.0 - 100.0 * static_cast<double>(allocated) / capacity);
    run.frag_gpu_pct.push_back(100.0 * frag_total / capacity);
    const double idle = capacity - static_cast<double>(allocated);
    run.frag_ratio_pct.push_back(idle > 0 ? 100.0 * frag_total / idle : 0.0);
  };

  for (int pod_index : arrivals) {
    const PodSpec& pod = pods[pod_index];
    const int shape_id = shapes.of_pod[pod_index];
    const PodShape& shape = shapes.shapes[shape_id];
    const int64_t total = shape.TotalGpuMilli();
    while (next_level < levels.size() &&
           static_cast<double>(arrived + total) > levels[next_level] / 100.0 * capacity) {
      record();
      ++next_level;
    }
    if (static_cast<double>(arrived) >= next_observe) {
      ctx.remaining_milli = std::max(0.0, env.tune * capacity - static_cast<double>(arrived));
      if (policy.Observe(ctx, state)) ++epoch;
      while (next_observe <= static_cast<double>(arrived)) next_observe += kObserveStepPct / 100.0 * capacity;
    }
    arrived += total;
    ++run.pods;

    int pick = -1;
    NodeScore chosen;
    if (policy.random_node()) {
      uint64_t seen = 0;
      for (size_t n = 0; n < state.size(); ++n) {
        if (state[n].Fits(shape, pod.memory_mib) && rng.Below(++seen) == 0) pick = static_cast<int>(n);
      }
      if (pick >= 0) chosen = policy.Score(ctx, state[pick], shape);
    } else {
      if (order.redrawn()) FilterOrderKeys(order, state.size(), &order_rng, &keys);
      double best = 0;
      uint64_t ties = 0;
      for (size_t n = 0; n < state.size(); ++n) {
        const NodeState& s = state[n];
        if (!s.Fits(shape, pod.memory_mib)) continue;
        NodeScore sc;
        if (policy.cacheable()) {
          CacheEntry& e = cache[n * num_shapes + shape_id];
          if (e.version != s.version || e.epoch != epoch) {
            e.score = policy.Score(ctx, s, shape);
            e.version = s.version;
            e.epoch = epoch;
          }
          sc = e.score;
        } else {
          sc = policy.Score(ctx, s, shape);
        }
        if (pick < 0 || sc.score > best) {
          best = sc.score;
          pick = static_cast<int>(n);
          chosen = sc;
          ties = 1;
        } else if (sc.score == best && !keys.empty() && keys[n] < keys[pick]) {
          pick = static_cast<int>(n);
          chosen = sc;
        } else if (sc.score == best && random_ties && rng.Below(++ties) == 0) {
          pick = static_cast<int>(n);
          chosen = sc;
        }
      }
    }
    if (pick < 0) {
      ++run.failed_pods;
      continue;
    }
    NodeState& s = state[pick];
    frag_total -= memo.Frag(s);
    s.Place(shape, pod.memory_mib, chosen.gpus);
    frag_total += memo.Frag(s);
    allocated += total;
  }
  while (next_level < levels.size()) {
    record();
    ++next_level;
  }
  run.arrived_final_pct = 100.0 * static_cast<double>(arrived) / capacity;
  return run;
}

// WorkerRollouts over a cluster and trace of its own.
class OwnedRollouts final : public Rollouts {
 public:
  OwnedRollouts(std::vector<NodeSpec> nodes, std::vector<PodSpec> pods, int64_t capacity_milli,
                const FragExperimentOptions& o)
      : nodes_(std::move(nodes)),
        pods_(std::move(pods)),
        shapes_(IndexShapes(pods_)),
        typical_(BuildTypicalPods(pods_, o.typical)),
        blend_(BlendTypicalPods(pods_, o.typical)),
        trace_shapes_(TraceShapes(pods_)),
        memo_(&typical_),
        blend_memo_(&blend_),
        levels_(o.arrived_levels_pct),
        order_(o.filter_order),
        env_{nodes_, pods_, shapes_, capacity_milli, levels_, o.tune,
             o.tie_break == TieBreak::kRandom, order_, memo_, blend_memo_, trace_shapes_},
        inner_(cache_, env_) {
    std::sort(levels_.begin(), levels_.end());
  }
  std::vector<double> Run(PolicyFactory make, int k) override { return inner_.Run(make, k); }
  std::vector<std::vector<double>> RunMany(const std::vector<RolloutKey>& keys) override {
    return inner_.RunMany(keys);
  }

 private:
  std::vector<NodeSpec> nodes_;
  std::vector<PodSpec> pods_;
  ShapeIndex shapes_;
  std::vector<TypicalPod> typical_, blend_, trace_shapes_;
  FragMemo memo_, blend_memo_;
  std::vector<double> levels_;
  FilterOrder order_;
  RunEnv env_;
  RolloutCache cache_;
  WorkerRollouts inner_;
};

}  // namespace

std::unique_ptr<Rollouts> MakeFragRollouts(std::vector<NodeSpec> nodes, std::vector<PodSpec> pods,
                                           const FragExperimentOptions& options) {
  int64_t capacity = 0, asked = 0;
  for (const NodeSpec& n : nodes) capacity += int64_t{n.num_gpus} * kMilliPerGpu;
  for (const PodSpec& p : pods) asked += p.TotalGpuMilli();
  if (capacity == 0 || asked == 0) return nullptr;
  return std::make_unique<OwnedRollouts>(std::move(nodes), std::move(pods), capacity, options);
}

std::vector<int> BuildArrivals(const std::vector<PodSpec>& pods, int64_t capacity_milli,
                               double tune, uint64_t seed) {
  std::vector<int> order(pods.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return pods[a].name < pods[b].name; });
  SplitMix64 rng(seed);
  for (size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[rng.Below(i)]);
  const double target = tune * static_cast<double>(capacity_milli);
  int64_t total = 0;
  for (const PodSpec& p : pods) total += p.TotalGpuMilli();
  if (static_cast<double>(total) > target) {
    while (static_cast<double>(total) > target && !order.empty()) {
      const size_t i = rng.Below(order.size());
      total -= pods[order[i]].TotalGpuMilli();
      order.erase(order.begin() + static_cast<std::ptrdiff_t>(i));
    }
    return order;
  }
  // Bounded: a trace whose pods ask almost no GPU cannot loop for ever.
  const size_t limit = 64 * pods.size() + 1024;
  while (order.size() < limit) {
    const int i = static_cast<int>(rng.Below(pods.size()));
    if (static_cast<double>(total + pods[i].gpu_milli) > target) break;
    total += pods[i].TotalGpuMilli();
    order.push_back(i);
  }
  return order;
}

Result<FragExperimentResult> RunFragExperiment(const std::vector<NodeSpec>& nodes,
                                               const std::vector<PodSpec>& pods,
                                               const FragExperimentOptions& options) {
  if (nodes.empty()) return InvalidArgument(options.nodes_source + ": no nodes");
  if (pods.empty()) return InvalidArgument(options.pods_source + ": no pods");
  if (options.policies.empty()) return InvalidArgument("no policies");
  if (options.seeds.empty()) return InvalidArgument("no seeds");
  if (!(options.tune > 0 && options.tune <= 10)) return InvalidArgument("tune must be in (0, 10]");
  for (double l : options.arrived_levels_pct) {
    if (!(l > 0 && l <= 1000)) return InvalidArgument("arrived levels must be in (0, 1000] %");
  }
  const FilterOrder& order = options.filter_order;
  if (!order.node_list() && options.tie_break == TieBreak::kRandom) {
    return InvalidArgument("a filter order needs ties broken by the first node, not at random");
  }
  if (order.running < 0 || order.running > kSchedulerParallelism || !(order.jitter >= 0) ||
      order.jitter > 1) {
    return InvalidArgument("filter order out of range: " + FilterOrderName(order));
  }
  FragExperimentResult out;
  out.arrived_pct = options.arrived_levels_pct;
  std::sort(out.arrived_pct.begin(), out.arrived_pct.end());
  for (const NodeSpec& n : nodes) out.cluster_gpu_milli += int64_t{n.num_gpus} * kMilliPerGpu;
  if (out.cluster_gpu_milli == 0) return InvalidArgument(options.nodes_source + ": no node has a GPU");
  int64_t trace_gpu = 0;
  for (const PodSpec& p : pods) trace_gpu += p.TotalGpuMilli();
  if (trace_gpu == 0) return InvalidArgument(options.pods_source + ": no pod requests a GPU");
  out.num_nodes = static_cast<int>(nodes.size());
  out.num_trace_pods = static_cast<int>(pods.size());
  out.typical = BuildTypicalPods(pods, options.typical);
  for (const std::string& name : options.policies) {
    FRUGAL_ASSIGN_OR_RETURN(auto probe, MakePlacementPolicy(name));
    (void)probe;
  }

  const std::vector<TypicalPod> blend_typical = BlendTypicalPods(pods, options.typical);
  const std::vector<TypicalPod> trace_shapes = TraceShapes(pods);
  const ShapeIndex shapes = IndexShapes(pods);
  std::vector<std::vector<int>> arrivals(options.seeds.size());
  for (size_t s = 0; s < options.seeds.size(); ++s) {
    arrivals[s] = BuildArrivals(pods, out.cluster_gpu_milli, options.tune, options.seeds[s]);
  }

  const size_t num_p = options.policies.size(), num_s = options.seeds.size();
  std::vector<FragRun> runs(num_p * num_s);
  std::atomic<size_t> next{0};
  std::mutex progress_mu;
  int done = 0;
  RolloutCache rollout_cache;
  auto worker = [&]() {
    FragMemo memo(&out.typical);
    FragMemo blend_memo(&blend_typical);
    while (true) {
      const size_t job = next.fetch_add(1);
      if (job >= runs.size()) return;
      const size_t p = job / num_s, s = job % num_s;
      auto policy = MakePlacementPolicy(options.policies[p]);
      const RunEnv env{nodes, pods, shapes, out.cluster_gpu_milli, out.arrived_pct, options.tune,
                       options.tie_break == TieBreak::kRandom, options.filter_order, memo,
                       blend_memo, trace_shapes};
      WorkerRollouts rollouts(rollout_cache, env);
      runs[job] = RunOne(env, arrivals[s], **policy, options.seeds[s], &rollouts);
      runs[job].decision = (*policy)->Decision();
      if (options.progress) {
        std::lock_guard<std::mutex> lock(progress_mu);
        options.progress(++done, static_cast<int>(runs.size()));
      }
    }
  };
  int threads = options.threads > 0 ? options.threads
                                    : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min<int>(threads, static_cast<int>(runs.size()));
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();

  const size_t num_levels = out.arrived_pct.size();
  for (size_t p = 0; p < num_p; ++p) {
    FragPolicyResult r;
    r.policy = options.policies[p];
    r.runs.assign(runs.begin() + static_cast<std::ptrdiff_t>(p * num_s),
                  runs.begin() + static_cast<std::ptrdiff_t>((p + 1) * num_s));
    for (size_t l = 0; l < num_levels; ++l) {
      std::vector<double> u, f, q;
      for (const FragRun& run : r.runs) {
        u.push_back(run.unallocated_gpu_pct[l]);
        f.push_back(run.frag_gpu_pct[l]);
        q.push_back(run.frag_ratio_pct[l]);
      }
      r.unallocated_gpu_pct.push_back(Median(u));
      r.frag_gpu_pct.push_back(Median(f));
      r.frag_ratio_pct.push_back(Median(q));
    }
    std::vector<double> failed;
    for (const FragRun& run : r.runs) failed.push_back(static_cast<double>(run.failed_pods));
    r.failed_pods = Median(failed);
    for (const FragRun& run : r.runs) {
      if (!run.decision.empty() && r.decision.find(run.decision) == std::string::npos) {
        r.decision += (r.decision.empty() ? "" : "; ") + run.decision;
      }
    }
    out.results.push_back(std::move(r));
  }
  return out;
}

}  // namespace frugal::share

#include "frugal/share/k8s/extender.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include <fmt/format.h>

#include "frugal/share/frag_experiment.h"
#include "frugal/share/placement_registry.h"

namespace frugal::share::k8s {

Result<ExtenderFilter> ParseExtenderFilter(std::string_view name) {
  if (name == "best") return ExtenderFilter::kBest;
  if (name == "fit") return ExtenderFilter::kFit;
  return InvalidArgument("filter mode '" + std::string(name) + "': expected best or fit");
}

Result<std::unique_ptr<Extender>> Extender::Create(const ExtenderOptions& options,
                                                   const std::vector<PodSpec>& workload,
                                                   GpuModelTable models) {
  if (workload.empty()) return InvalidArgument("the workload trace has no pods");
  if (!(options.assume_ttl_s > 0)) return InvalidArgument("assume TTL must be > 0");
  auto policy = MakePlacementPolicy(options.policy);
  if (!policy.ok()) return policy.status();
  return std::unique_ptr<Extender>(
      new Extender(options, std::move(models), workload, std::move(*policy)));
}

Extender::Extender(const ExtenderOptions& options, GpuModelTable models,
                   std::vector<PodSpec> workload, std::unique_ptr<PlacementPolicy> policy)
    : options_(options),
      models_(std::move(models)),
      workload_(std::move(workload)),
      typical_(BuildTypicalPods(workload_)),
      blend_(BlendTypicalPods(workload_)),
      trace_shapes_(TraceShapes(workload_)),
      memo_(&typical_),
      blend_memo_(&blend_),
      rng_(options.seed ^ 0x5deece66dull),
      policy_(std::move(policy)),
      ctx_{&memo_, &blend_memo_, &rng_, nullptr, &trace_shapes_} {}

Extender::Entry* Extender::Find(const std::string& name) {
  const auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

bool Extender::Charge(Entry& e, const PodShape& shape, int64_t memory_mib, GpuSet gpus) {
  NodeState& s = e.state;
  bool whole = s.cpu_left >= shape.cpu_milli && s.memory_left >= memory_mib &&
               std::popcount(gpus) == shape.num_gpu;
  s.cpu_left -= shape.cpu_milli;
  s.memory_left -= memory_mib;
  for (int i = 0; i < s.num_gpus; ++i) {
    if (((gpus >> i) & 1u) == 0) continue;
    if (s.gpu_left[i] < shape.gpu_milli) whole = false;
    s.gpu_left[i] = static_cast<int16_t>(std::max(0, s.gpu_left[i] - shape.gpu_milli));
  }
  if ((gpus >> s.num_gpus) != 0) whole = false;  // a GPU the node does not have
  if (const int tag = AffinityOf(shape); tag != 0) ++s.affinity[tag];
  ++s.version;
  return whole;
}

int Extender::Sync(const std::vector<Node>& nodes, const std::vector<Pod>& pods, double now_s,
                   const std::vector<std::string>& departed) {
  nodes_.clear();
  index_.clear();
  for (const Node& n : nodes) {
    if (index_.count(n.spec.name)) continue;
    index_.emplace(n.spec.name, nodes_.size());
    nodes_.push_back({n.spec.name, n.schedulable, NodeState::FromSpec(n.spec)});
  }
  int short_charged = 0;
  // Pods whose assumed binds end: listed bound or terminal, or departed.
  std::unordered_set<std::string> listed_bound(departed.begin(), departed.end());
  // Annotated pods first: their GPUs are known, so a pod whose GPUs must
  // be guessed cannot take a GPU another pod is known to hold.
  for (int pass = 0; pass < 2; ++pass) {
    for (const Pod& p : pods) {
      if (p.terminal && !p.uid.empty()) listed_bound.insert(p.uid);
      if (p.terminal || p.node_name.empty()) continue;
      const PodShape shape = ShapeOf(p.spec);
      const bool annotated = p.gpus.has_value() || shape.num_gpu == 0;
      if (annotated != (pass == 0)) continue;
      listed_bound.insert(p.uid);
      Entry* e = Find(p.node_name);
      if (e == nullptr) {
        // A pod on a node the listing omits holds nothing we schedule.
        continue;
      }
      GpuSet gpus = p.gpus.value_or(0);
      if (!p.gpus && shape.num_gpu > 0) {
        gpus = e->state.GpusCanHost(shape) ? policy_->Score(ctx_, e->state, shape).gpus : 0;
      }
      if (!Charge(*e, shape, p.spec.memory_mib, gpus)) ++short_charged;
    }
  }
  for (auto it = assumed_.begin(); it != assumed_.end();) {
    if (listed_bound.count(it->first) || it->second.expires_s <= now_s) {
      it = assumed_.erase(it);
      continue;
    }
    if (Entry* e = Find(it->second.binding.node)) {
      if (!Charge(*e, it->second.shape, it->second.memory_mib, it->second.binding.gpus)) {
        ++short_charged;
      }
    }
    ++it;
  }
  std::vector<NodeState> states;
  states.reserve(nodes_.size());
  for (const Entry& e : nodes_) states.push_back(e.state);
  std::unique_ptr<Rollouts> rollouts;
  if (!rollouts_offered_) {
    std::vector<NodeSpec> specs;
    specs.reserve(nodes.size());
    for (const Node& n : nodes) specs.push_back(n.spec);
    rollouts = MakeFragRollouts(std::move(specs), workload_);
    rollouts_offered_ = rollouts != nullptr;
  }
  ctx_.rollouts = rollouts.get();
  policy_->Observe(ctx_, states);
  ctx_.rollouts = nullptr;
  return short_charged;
}

std::string Extender::Misfit(const Entry& e, const PodShape& shape, int64_t memory_mib,
                             bool* unresolvable) const {
  const NodeState& s = e.state;
  bool fixed = true;  // set false for what departures can free
  std::string why;
  if (!e.schedulable) {
    why = "node is cordoned (spec.unschedulable)";
  } else if (shape.num_gpu > 0 && s.num_gpus == 0) {
    why = "node has no GPUs";
  } else if (shape.num_gpu > 0 && !s.ModelAllowed(shape.models)) {
    why = fmt::format("GPU model {} is not one the pod accepts",
                      s.model == 0 ? std::string("(unlabelled)") : models_.Name(s.model));
  } else if (shape.num_gpu > s.num_gpus) {
    why = fmt::format("needs {} GPUs, the node has {}", shape.num_gpu, s.num_gpus);
  } else if (s.cpu_left < shape.cpu_milli) {
    why = fmt::format("needs {} CPU milli, {} free", shape.cpu_milli, s.cpu_left);
    fixed = shape.cpu_milli > s.cpu_capacity;
  } else if (s.memory_left < memory_mib) {
    why = fmt::format("needs {} MiB memory, {} free", memory_mib, s.memory_left);
    fixed = false;
  } else if (shape.num_gpu > 0 && !s.GpusCanHost(shape)) {
    int fit = 0;
    for (int i = 0; i < s.num_gpus; ++i) fit += s.gpu_left[i] >= shape.gpu_milli;
    why = fmt::format("needs {} GPU(s) with {} milli free, {} of {} have it", shape.num_gpu,
                      shape.gpu_milli, fit, s.num_gpus);
    fixed = false;
  }
  if (unresolvable != nullptr) *unresolvable = !why.empty() && fixed;
  return why;
}

FilterResult Extender::Filter(const Pod& pod, const std::vector<std::string>& candidates) {
  FilterResult out;
  const PodShape shape = ShapeOf(pod.spec);
  std::vector<std::pair<const std::string*, double>> fits;
  for (const std::string& name : candidates) {
    const Entry* e = Find(name);
    if (e == nullptr) {
      out.unresolvable.emplace_back(name, "not a node the API server lists");
      continue;
    }
    bool unresolvable = false;
    if (std::string why = Misfit(*e, shape, pod.spec.memory_mib, &unresolvable); !why.empty()) {
      (unresolvable ? out.unresolvable : out.failed).emplace_back(name, std::move(why));
      continue;
    }
    fits.emplace_back(&name, 0.0);
  }
  if (options_.filter == ExtenderFilter::kFit || fits.empty()) {
    for (const auto& f : fits) out.nodes.push_back(*f.first);
    return out;
  }
  if (policy_->random_node()) {
    const size_t keep = rng_.Below(fits.size());
    for (size_t i = 0; i < fits.size(); ++i) {
      if (i == keep) {
        out.nodes.push_back(*fits[i].first);
      } else {
        out.failed.emplace_back(*fits[i].first, options_.policy + " drew another node");
      }
    }
    return out;
  }
  double best = 0;
  for (size_t i = 0; i < fits.size(); ++i) {
    fits[i].second = policy_->Score(ctx_, Find(*fits[i].first)->state, shape).score;
    if (i == 0 || fits[i].second > best) best = fits[i].second;
  }
  for (const auto& [name, score] : fits) {
    if (score == best) {
      out.nodes.push_back(*name);
    } else {
      out.failed.emplace_back(*name, fmt::format("{} scores it {:.6g}, below the best {:.6g}",
                                                 options_.policy, score, best));
    }
  }
  return out;
}

std::vector<HostScore> Extender::Prioritize(const Pod& pod,
                                            const std::vector<std::string>& candidates) {
  const PodShape shape = ShapeOf(pod.spec);
  std::vector<HostScore> out;
  std::vector<double> raw(candidates.size(), 0);
  std::vector<bool> fit(candidates.size(), false);
  double lo = 0, hi = 0;
  bool any = false;
  const bool random = policy_->random_node();
  for (size_t i = 0; i < candidates.size(); ++i) {
    const Entry* e = Find(candidates[i]);
    if (e == nullptr || !Misfit(*e, shape, pod.spec.memory_mib).empty()) continue;
    fit[i] = true;
    raw[i] = random ? 0.0 : policy_->Score(ctx_, e->state, shape).score;
    lo = any ? std::min(lo, raw[i]) : raw[i];
    hi = any ? std::max(hi, raw[i]) : raw[i];
    any = true;
  }
  for (size_t i = 0; i < candidates.size(); ++i) {
    int64_t s = 0;
    if (fit[i]) {
      // The best node gets the top score and the worst 0: the policy's
      // order survives the scheduler's coarse range.
      s = hi > lo ? std::llround(kMaxExtenderPriority * (raw[i] - lo) / (hi - lo))
                  : kMaxExtenderPriority;
    }
    out.push_back({candidates[i], s});
  }
  return out;
}

Result<Binding> Extender::Bind(const Pod& pod, const std::string& node, double now_s) {
  Entry* e = Find(node);
  if (e == nullptr) return NotFound("node " + node + ": not a node the API server lists");
  const PodShape shape = ShapeOf(pod.spec);
  if (std::string why = Misfit(*e, shape, pod.spec.memory_mib); !why.empty()) {
    return FailedPrecondition("pod " + pod.Key() + " no longer fits node " + node + ": " + why);
  }
  Binding b{node, shape.num_gpu > 0 ? policy_->Score(ctx_, e->state, shape).gpus : 0};
  Charge(*e, shape, pod.spec.memory_mib, b.gpus);
  if (!pod.uid.empty()) {
    assumed_[pod.uid] = {b, shape, pod.spec.memory_mib, now_s + options_.assume_ttl_s};
  }
  return b;
}

void Extender::Forget(const std::string& uid) {
  const auto it = assumed_.find(uid);
  if (it == assumed_.end()) return;
  const Assumed& a = it->second;
  if (Entry* e = Find(a.binding.node)) {
    NodeState& s = e->state;
    s.cpu_left += a.shape.cpu_milli;
    s.memory_left += a.memory_mib;
    for (int i = 0; i < s.num_gpus; ++i) {
      if ((a.binding.gpus >> i) & 1u) s.gpu_left[i] = static_cast<int16_t>(s.gpu_left[i] + a.shape.gpu_milli);
    }
    if (const int tag = AffinityOf(a.shape); tag != 0 && s.affinity[tag] > 0) --s.affinity[tag];
    ++s.version;
  }
  assumed_.erase(it);
}

std::vector<NodeView> Extender::Nodes() const {
  std::vector<NodeView> out;
  out.reserve(nodes_.size());
  for (const Entry& e : nodes_) {
    out.push_back({e.name, e.schedulable, e.state, NodeFragMilli(e.state, typical_)});
  }
  return out;
}

}  // namespace frugal::share::k8s

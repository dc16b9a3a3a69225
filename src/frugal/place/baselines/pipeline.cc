// `pipeline`: a layer pipeline (GPipe / PipeDream). The colocation groups, in
// the order their first op runs, are cut into S <= K contiguous stages, stage
// s on GPU s. For each S, a dynamic program (PipeDream's partitioner) picks
// the boundaries that minimize the slowest stage's compute with every stage
// in memory; each S is then scheduled and simulated, and the fastest wins.
// Order per GPU: 1F1B when the step is micro-batched (microbatch.h): stage s
// runs min(S - 1 - s, M) warm-up forwards, then one forward and one backward
// alternately, the remaining backwards, and the optimizer updates last.
// Without micro-batches: bottom-level list scheduling.
#include <algorithm>
#include <limits>
#include <numeric>
#include <string>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/lp_model.h"

namespace frugal::place {
namespace {


// Stage boundaries: units [cut[s], cut[s + 1]) form stage s; empty when no
// split into `stages` fits.
std::vector<int> BalancedCuts(const std::vector<double>& time, const std::vector<double>& mem,
                              double cap, int stages, const Deadline& deadline) {
  const int n = static_cast<int>(time.size());
  std::vector<double> t(n + 1, 0), m(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    t[i + 1] = t[i] + time[i];
    m[i + 1] = m[i] + mem[i];
  }
  // best[s][j]: the slowest stage when units [0, j) form s + 1 stages.
  std::vector<std::vector<double>> best(stages, std::vector<double>(n + 1, kInf));
  std::vector<std::vector<int>> from(stages, std::vector<int>(n + 1, -1));
  for (int j = 1; j <= n; ++j) {
    if (m[j] <= cap) best[0][j] = t[j];
  }
  for (int s = 1; s < stages; ++s) {
    if (deadline.Passed()) return {};
    for (int j = s + 1; j <= n; ++j) {
      for (int i = j - 1; i >= s; --i) {
        if (m[j] - m[i] > cap) break;  // longer stages only hold more
        const double v = std::max(best[s - 1][i], t[j] - t[i]);
        if (v < best[s][j]) {
          best[s][j] = v;
          from[s][j] = i;
        }
      }
    }
  }
  if (best[stages - 1][n] == kInf) return {};
  std::vector<int> cut(stages + 1, n);
  for (int s = stages - 1, j = n; s >= 0; --s) {
    cut[s] = s == 0 ? 0 : from[s][j];
    j = cut[s];
  }
  return cut;
}

// 1F1B: per device, chunks (micro-batch, forward / backward) in that order.
Placement OneFOneB(const PlacementProblem& p, const std::vector<int>& device, int stages) {
  const int m = p.num_microbatches;
  Placement pl;
  pl.device = device;
  pl.order.assign(p.num_devices, {});
  // chunk[d][2 * r + backward]: the ops of that chunk on d, topological.
  std::vector<std::vector<std::vector<int>>> chunk(
      p.num_devices, std::vector<std::vector<int>>(2 * m));
  std::vector<std::vector<int>> shared(p.num_devices);
  for (int u : p.topo_order) {
    const int r = p.op_microbatch[u];
    if (r < 0) {
      shared[device[u]].push_back(u);
    } else {
      const bool backward = p.op_phase[u] != Phase::kForward;
      chunk[device[u]][2 * r + (backward ? 1 : 0)].push_back(u);
    }
  }
  for (int d = 0; d < p.num_devices; ++d) {
    std::vector<int>& order = pl.order[d];
    auto run = [&](int r, int backward) {
      const auto& ops = chunk[d][2 * r + backward];
      order.insert(order.end(), ops.begin(), ops.end());
    };
    const int warmup = std::min(std::max(stages - 1 - d, 0), m);
    for (int r = 0; r < warmup; ++r) run(r, 0);
    for (int r = 0; r < m; ++r) {
      if (warmup + r < m) run(warmup + r, 0);
      run(r, 1);
    }
    order.insert(order.end(), shared[d].begin(), shared[d].end());
  }
  return pl;
}

}  // namespace

Result<PlaceOutcome> PlacePipeline(const PlacementProblem& p, const PlaceOptions& o) {
  // Units: colocation groups in the order their first op runs.
  std::vector<int> first(p.num_groups, std::numeric_limits<int>::max());
  for (int u = 0; u < p.num_ops(); ++u) first[p.group[u]] = std::min(first[p.group[u]], p.topo_pos[u]);
  std::vector<int> units(p.num_groups);
  std::iota(units.begin(), units.end(), 0);
  std::stable_sort(units.begin(), units.end(), [&](int a, int b) { return first[a] < first[b]; });
  std::vector<double> time, mem;
  for (int g : units) {
    time.push_back(p.group_time_ms[g]);
    mem.push_back(static_cast<double>(p.group_mem_bytes[g]));
  }
  const double cap = *std::min_element(p.device_mem_bytes.begin(), p.device_mem_bytes.end());
  const bool micro = p.num_microbatches > 1 && !p.op_microbatch.empty() && !p.op_phase.empty();
  PlaceOutcome out = Infeasible("no split into contiguous stages fits in memory");
  double best_ms = kInf;
  for (int stages = 1; stages <= std::min(p.num_devices, p.num_groups); ++stages) {
    // Past the deadline, only until a first placement is found.
    const bool found = best_ms < kInf;
    if (found && o.deadline.Passed()) {
      out.status = SolveStatus::kTimeLimit;
      break;
    }
    std::vector<int> cut = BalancedCuts(time, mem, cap, stages, found ? o.deadline : Deadline{});
    if (cut.empty()) continue;
    std::vector<int> device(p.num_ops(), 0);
    std::vector<int> stage_of_group(p.num_groups, 0);
    for (int s = 0; s < stages; ++s) {
      for (int k = cut[s]; k < cut[s + 1]; ++k) stage_of_group[units[k]] = s;
    }
    for (int u = 0; u < p.num_ops(); ++u) device[u] = stage_of_group[p.group[u]];
    Placement pl;
    double ms = kInf;
    if (micro) {
      pl = OneFOneB(p, device, stages);
      SimResult sim = Simulate(p, pl);
      if (sim.feasible) ms = sim.makespan_ms;
    }
    if (ms == kInf) pl = ScheduleByBottomLevel(p, device, &ms);
    if (ms < best_ms) {
      best_ms = ms;
      out.status = SolveStatus::kOk;
      out.placement = std::move(pl);
      out.note = std::to_string(stages) + " stages" + (micro ? ", 1F1B" : "");
    }
  }
  return out;
}

}  // namespace frugal::place

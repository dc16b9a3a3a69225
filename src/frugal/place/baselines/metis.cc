// `metis`: k-way partition of the colocation groups with libmetis (two
// balance constraints: compute and memory; edge weights: transfer times),
// memory repaired by moving groups off overfull devices, then list
// scheduling by bottom level.
#include <metis.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/quiet_output.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceMetis(const PlacementProblem& p, const PlaceOptions& o) {
  const int k = p.num_devices, ng = p.num_groups;
  std::vector<int> part(ng, 0);
  if (k > 1 && ng > k) {
    std::vector<std::map<int, double>> adj(ng);
    for (size_t e = 0; e < p.edges.size(); ++e) {
      int a = p.group[p.edges[e].src], b = p.group[p.edges[e].dst];
      if (a == b) continue;
      double c = p.MinEdgeTransferMs(static_cast<int>(e));
      adj[a][b] += c;
      adj[b][a] += c;
    }
    double total_t = std::max(1e-9, p.total_time_ms());
    double total_m = std::max(1.0, static_cast<double>(p.total_mem_bytes()));
    idx_t nv = ng, ncon = 2, nparts = k, objval = 0;
    std::vector<idx_t> xadj{0}, adjncy, adjwgt, vwgt, out(ng);
    for (int g = 0; g < ng; ++g) {
      vwgt.push_back(1 + static_cast<idx_t>(std::llround(p.group_time_ms[g] / total_t * 1e6)));
      vwgt.push_back(1 + static_cast<idx_t>(std::llround(p.group_mem_bytes[g] / total_m * 1e6)));
      for (const auto& [h, c] : adj[g]) {
        adjncy.push_back(h);
        adjwgt.push_back(1 + static_cast<idx_t>(std::llround(std::min(c, 1e6) * 1000)));
      }
      xadj.push_back(static_cast<idx_t>(adjncy.size()));
    }
    double cap = *std::min_element(p.device_mem_bytes.begin(), p.device_mem_bytes.end());
    real_t mem_slack = std::isinf(cap) ? 1.5 : static_cast<real_t>(cap / (total_m / k));
    std::vector<real_t> ubvec{1.05f, std::clamp<real_t>(mem_slack, 1.01f, 1.5f)};
    idx_t options[METIS_NOPTIONS];
    METIS_SetDefaultOptions(options);
    options[METIS_OPTION_SEED] = static_cast<idx_t>(o.seed % 1000003);
    QuietOutput quiet;  // METIS prints its input errors on stdout
    int rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adjncy.data(), vwgt.data(), nullptr,
                                 adjwgt.data(), &nparts, nullptr, ubvec.data(), options,
                                 &objval, out.data());
    if (rc != METIS_OK) {
      ncon = 1;
      std::vector<idx_t> vw1(ng);
      for (int g = 0; g < ng; ++g) vw1[g] = vwgt[2 * g];
      rc = METIS_PartGraphKway(&nv, &ncon, xadj.data(), adjncy.data(), vw1.data(), nullptr,
                               adjwgt.data(), &nparts, nullptr, nullptr, options, &objval,
                               out.data());
    }
    if (rc != METIS_OK) return Internal("METIS_PartGraphKway failed with code " + std::to_string(rc));
    for (int g = 0; g < ng; ++g) part[g] = static_cast<int>(out[g]);
  } else if (k > 1) {
    for (int g = 0; g < ng; ++g) part[g] = g % k;
  }
  if (!RepairGroupMemory(p, &part)) {
    return Infeasible("METIS partition could not be repaired to fit device memory");
  }
  std::vector<int> device(p.num_ops());
  for (int i = 0; i < p.num_ops(); ++i) device[i] = part[p.group[i]];
  PlaceOutcome out;
  out.placement = ScheduleByBottomLevel(p, device);
  return out;
}

}  // namespace frugal::place

// `m-sct` (Baechi, SoCC'20, after Hanen & Munier): an LP relaxation of
// scheduling with small communication times picks each op's favorite child
// (x_uv < 1/2: u and v should share a device); ETF then keeps favorite
// children on their parent's device. LP solved with CLP.
#include <algorithm>
#include <map>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/lp_model.h"

namespace frugal::place {

Result<PlaceOutcome> PlaceMSct(const PlacementProblem& p, const PlaceOptions& o) {
  const int n = p.num_ops();
  if (p.num_devices == 1) return EarliestTaskFirst(p, {}, o.deadline);
  LpModel lp;
  std::vector<int> s(n);
  for (int i = 0; i < n; ++i) s[i] = lp.AddColumn(0, kInf, 0);
  int w = lp.AddColumn(0, kInf, 1);
  std::map<std::pair<int, int>, double> pair_cost;
  for (size_t e = 0; e < p.edges.size(); ++e) {
    auto key = std::make_pair(p.edges[e].src, p.edges[e].dst);
    double c = p.MinEdgeTransferMs(static_cast<int>(e));
    auto [it, inserted] = pair_cost.emplace(key, c);
    if (!inserted) it->second = std::max(it->second, c);
  }
  std::map<std::pair<int, int>, int> x;
  std::vector<std::vector<std::pair<int, double>>> out_rows(n), in_rows(n);
  for (const auto& [key, c] : pair_cost) {
    int col = lp.AddColumn(0, 1, 0);
    x[key] = col;
    lp.AddRow({{s[key.second], 1}, {s[key.first], -1}, {col, -c}}, p.time_ms[key.first], kInf);
    out_rows[key.first].push_back({col, 1});
    in_rows[key.second].push_back({col, 1});
  }
  for (int i = 0; i < n; ++i) {
    if (out_rows[i].size() >= 2) {
      lp.AddRow(out_rows[i], static_cast<double>(out_rows[i].size()) - 1, kInf);
    }
    if (in_rows[i].size() >= 2) {
      lp.AddRow(in_rows[i], static_cast<double>(in_rows[i].size()) - 1, kInf);
    }
    if (p.succs[i].empty()) lp.AddRow({{w, 1}, {s[i], -1}}, p.time_ms[i], kInf);
  }
  // Half the time left for the LP; without its solution (time limit), ETF
  // runs without favorite children.
  FRUGAL_ASSIGN_OR_RETURN(MipResult r, lp.SolveLp(0.5 * o.deadline.LeftS()));
  std::vector<int> favorite_parent(n, -1);
  if (r.has_solution) {
    std::vector<double> best(n, 0.5);
    for (const auto& [key, col] : x) {
      double v = r.x[col];
      if (v < best[key.second]) {
        best[key.second] = v;
        favorite_parent[key.second] = key.first;
      }
    }
  }
  PlaceOutcome out = EarliestTaskFirst(p, favorite_parent, o.deadline);
  if (r.time_limit && out.status == SolveStatus::kOk) {
    out.status = SolveStatus::kTimeLimit;
    out.note = "time limit: the LP was not solved, ETF ran without favorite children";
  }
  return out;
}

}  // namespace frugal::place

#include "frugal/place/placer.h"

#include <exception>

#include "frugal/place/baselines/baselines.h"
#include "frugal/place/pesto.h"

namespace frugal::place {

const char* SolveStatusName(SolveStatus s) {
  switch (s) {
    case SolveStatus::kOk: return "ok";
    case SolveStatus::kOptimal: return "optimal";
    case SolveStatus::kTimeLimit: return "time_limit";
    case SolveStatus::kInfeasible: return "infeasible";
  }
  return "?";
}

namespace {

constexpr RegistryRow<PlacerFn> kPlacers[] = {
    {"single", "everything on GPU 0 (when it fits)", &PlaceSingle},
    {"expert", "contiguous split in topological order balancing time under memory",
     &PlaceExpert},
    {"heft", "HEFT: upward rank order, earliest finish time device", &PlaceHeft},
    {"m-topo", "Baechi m-TOPO: topological order filling devices by memory share",
     &PlaceMTopo},
    {"m-etf", "Baechi m-ETF: earliest start (op, device) pair first, memory-aware",
     &PlaceMEtf},
    {"m-sct", "Baechi m-SCT: ETF with favorite children from an LP (CLP)", &PlaceMSct},
    {"metis", "k-way partition with METIS, then list scheduling", &PlaceMetis},
    {"pipeline", "layer pipeline: contiguous stages by DP, 1F1B over micro-batches",
     &PlacePipeline},
    {"pesto", "coarsen, MIP (CBC) warm-started from the best baseline, refine",
     &PlacePesto},
};

}  // namespace

std::span<const RegistryRow<PlacerFn>> Placers() { return kPlacers; }

Result<PlaceOutcome> RunPlacer(const std::string& name, const PlacementProblem& p,
                               const PlaceOptions& options) {
  const RegistryRow<PlacerFn>* row = FindRow(Placers(), name);
  if (!row) {
    return NotFound("unknown placement method '" + name + "' (expected " +
                    RowNames(Placers()) + ")");
  }
  PlaceOptions o = options;
  o.deadline = Deadline::Earlier(options.deadline, Deadline::In(options.time_limit_s));
  try {
    return row->factory(p, o);
  } catch (const std::exception& e) {
    return Internal("place method " + name + ": " + e.what());
  }
}

}  // namespace frugal::place

// placement.json: per node (id, name) its device, start and end time, and per
// device the execution order — what a framework needs to apply a placement
// (docs/place.md shows the TensorFlow and PyTorch recipes). Stateless.
#ifndef FRUGAL_PLACE_PLACEMENT_JSON_H_
#define FRUGAL_PLACE_PLACEMENT_JSON_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

struct PlacementInfo {
  std::string method;
  double lower_bound_ms = -1;
  std::string granularity;  // colocation.h; "" = not given
  // Written as "device_map" and "modules" when not null (device_map.h).
  nlohmann::json device_map;
  nlohmann::json modules;
  std::string device_map_note;  // why there is none, when there is none
};

// REQUIRES: sim is Simulate(p, placement, {.keep_timeline = true}), feasible.
nlohmann::json PlacementToJson(const PlacementProblem& p, const Placement& placement,
                               const SimResult& sim, const PlacementInfo& info);
Status WritePlacementJson(const std::string& path, const PlacementProblem& p,
                          const Placement& placement, const SimResult& sim,
                          const PlacementInfo& info);

// Reads the device and order of every op back (matching nodes by index).
// InvalidArgument naming the file when it does not fit the problem.
Result<Placement> ParsePlacementJson(const std::string& path, const std::string& text,
                                     const PlacementProblem& p);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_PLACEMENT_JSON_H_

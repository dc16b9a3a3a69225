// Miss-ratio curves as a self-contained SVG: one line per policy, cache
// size on x, miss ratio (left panel) and byte miss ratio (right panel) on
// y. Deterministic text output; stateless; thread-safe.
#ifndef FRUGAL_CACHE_SVG_PLOT_H_
#define FRUGAL_CACHE_SVG_PLOT_H_

#include <string>
#include <vector>

#include "frugal/cache/simulator.h"

namespace frugal::cache {

std::string MissRatioCurvesSvg(const std::vector<SimulationResult>& results,
                               const std::string& title);

}  // namespace frugal::cache

#endif  // FRUGAL_CACHE_SVG_PLOT_H_

// Chrome-trace JSON (Trace Event Format) of a simulated schedule: one row
// per GPU with its ops, one row per link with its transfers. Opens in
// Perfetto and chrome://tracing. Stateless.
#ifndef FRUGAL_PLACE_CHROME_TRACE_H_
#define FRUGAL_PLACE_CHROME_TRACE_H_

#include <string>

#include <nlohmann/json.hpp>

#include "frugal/base/status.h"
#include "frugal/place/problem.h"
#include "frugal/place/simulator.h"

namespace frugal::place {

// REQUIRES: sim from Simulate(..., {.keep_timeline = true}), feasible.
nlohmann::json ChromeTrace(const PlacementProblem& p, const Placement& placement,
                           const SimResult& sim);
Status WriteChromeTrace(const std::string& path, const PlacementProblem& p,
                        const Placement& placement, const SimResult& sim);

}  // namespace frugal::place

#endif  // FRUGAL_PLACE_CHROME_TRACE_H_

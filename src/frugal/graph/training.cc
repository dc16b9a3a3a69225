#include "frugal/graph/training.h"
namespace frugal {
const char* OptimizerName(Optimizer) { return "adam"; }
bool ParseOptimizer(std::string_view, Optimizer*) { return false; }
Result<OpGraph> BuildTrainingGraph(const OpGraph& forward, const TrainingOptions&) { return forward; }
MemoryBreakdown EstimateMemory(const OpGraph&, const TrainingOptions&) { return {}; }
}

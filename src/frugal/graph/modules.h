// The framework module each op of a graph comes from, as PyTorch's
// named_modules() names it: an HF config's op names are module paths
// ("h.3.attn.c_attn", a functional op "h.3.attn.softmax" inside "h.3.attn"),
// ONNX exports scope their nodes ("/layer1/layer1.0/conv1/Conv" ->
// "layer1.0.conv1") and name their weights ("layer1.0.conv1.weight").
// Modules that hold parameters are known exactly; every other op belongs to
// the deepest known module that encloses its path ("" = the model itself).
// Backward and optimizer ops belong to their forward op's module. Graphs
// whose names are not module paths (profiled TensorFlow node ids) have no
// modules. Stateless; thread-safe.
#ifndef FRUGAL_GRAPH_MODULES_H_
#define FRUGAL_GRAPH_MODULES_H_

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "frugal/graph/op_graph.h"

namespace frugal {

struct ModuleMap {
  std::vector<std::string> module_of_op;  // per op; "" = the root module
  std::set<std::string> param_modules;    // modules that own parameters
  // False when the graph's names carry no module paths (no op owns a
  // parameter under a module name): module_of_op is then all "".
  bool has_modules() const { return !param_modules.empty(); }
};

// "/layer1/layer1.0/conv1/Conv" -> "layer1.0.conv1" (the last component, the
// node's own name, dropped; a component that extends the path so far, as
// "layer1.0" after "layer1", replaces it). Names without a leading '/' are
// returned as they are.
std::string ScopeToModulePath(std::string_view name);

// REQUIRES: forward_op indices valid or -1.
ModuleMap MapModules(const OpGraph& graph);

// Whether `op` reads a trainable parameter (it is, or is in, a module that
// owns parameters).
bool OwnsParameters(const Op& op);

}  // namespace frugal

#endif  // FRUGAL_GRAPH_MODULES_H_

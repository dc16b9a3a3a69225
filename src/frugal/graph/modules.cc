#include "frugal/graph/modules.h"

#include <string>

namespace frugal {
namespace {

// "layer1.0.conv1.weight" -> "layer1.0.conv1"; "" for names that are not
// module paths (ONNX's folded "onnx::Conv_497", a bare "weight").
std::string ParamModule(const std::string& param) {
  if (param.find(':') != std::string::npos || param.find('/') != std::string::npos) return "";
  size_t dot = param.rfind('.');
  return dot == std::string::npos ? "" : param.substr(0, dot);
}

std::string FirstParamModule(const Op& op) {
  for (const TensorInfo& t : op.inputs) {
    if (t.role != TensorRole::kParameter) continue;
    std::string m = ParamModule(t.name);
    if (!m.empty()) return m;
  }
  return "";
}

// The module path an op's own name gives, and the module it owns when it
// holds parameters ("" when neither is known).
struct NamedPath {
  std::string path;
  std::string owned;
};

NamedPath PathOf(const Op& op, const std::string& format) {
  NamedPath n;
  const bool scoped = !op.name.empty() && op.name[0] == '/';
  if (scoped) {
    n.path = ScopeToModulePath(op.name);
  } else if (format != "onnx") {
    n.path = op.name;
  }
  if (!OwnsParameters(op)) return n;
  // ONNX: the weight's name is the module's; HF: the op is the module (a tied
  // lm_head reads wte.weight but is still lm_head).
  std::string from_param = FirstParamModule(op);
  n.owned = (scoped || format == "onnx") ? (from_param.empty() ? n.path : from_param) : n.path;
  if (n.path.empty()) n.path = n.owned;
  return n;
}

// The deepest module of `known` that is `path` or encloses it.
std::string Enclosing(const std::string& path, const std::set<std::string>& known) {
  std::string p = path;
  while (!p.empty()) {
    if (known.count(p) != 0) return p;
    size_t dot = p.rfind('.');
    p = dot == std::string::npos ? "" : p.substr(0, dot);
  }
  return "";
}

}  // namespace

std::string ScopeToModulePath(std::string_view name) {
  if (name.empty() || name[0] != '/') return std::string(name);
  std::vector<std::string> parts;  // the path's dot-separated components
  std::string_view rest = name.substr(1);
  for (size_t slash; (slash = rest.find('/')) != std::string_view::npos;) {
    const std::string scope(rest.substr(0, slash));  // the last component names the node
    rest = rest.substr(slash + 1);
    if (scope.empty()) continue;
    // A scope names a module relative to an ancestor ("/layer1/layer1.0",
    // "/downsample/downsample.0", "/conv.0/conv.0.0"): the longest tail of
    // the path that it extends is replaced by it.
    size_t keep = parts.size();
    std::string tail;
    for (size_t k = 1; k <= parts.size(); ++k) {
      tail = k == 1 ? parts.back() : parts[parts.size() - k] + "." + tail;
      if (scope.size() > tail.size() && scope.compare(0, tail.size(), tail) == 0 &&
          scope[tail.size()] == '.') {
        keep = parts.size() - k;
      }
    }
    parts.resize(keep);
    size_t start = 0;
    for (size_t dot; (dot = scope.find('.', start)) != std::string::npos; start = dot + 1) {
      parts.push_back(scope.substr(start, dot - start));
    }
    parts.push_back(scope.substr(start));
  }
  std::string path;
  for (const std::string& p : parts) path += (path.empty() ? "" : ".") + p;
  return path;
}

bool OwnsParameters(const Op& op) {
  for (const TensorInfo& t : op.inputs) {
    if (t.role == TensorRole::kParameter) return true;
  }
  return false;
}

ModuleMap MapModules(const OpGraph& graph) {
  ModuleMap m;
  const int n = graph.num_ops();
  m.module_of_op.assign(n, "");
  if (graph.source_format == "dnn_partitioning") return m;
  std::vector<NamedPath> named(n);
  std::set<std::string> known;
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.ops[i];
    if (op.phase != Phase::kForward) continue;
    named[i] = PathOf(op, graph.source_format);
    if (named[i].owned.empty()) continue;
    m.param_modules.insert(named[i].owned);
    // A module's ancestors are modules too.
    std::string p = named[i].owned;
    while (!p.empty()) {
      known.insert(p);
      size_t dot = p.rfind('.');
      p = dot == std::string::npos ? "" : p.substr(0, dot);
    }
  }
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.ops[i];
    if (op.phase != Phase::kForward) continue;
    m.module_of_op[i] =
        named[i].owned.empty() ? Enclosing(named[i].path, known) : named[i].owned;
  }
  for (int i = 0; i < n; ++i) {
    const Op& op = graph.ops[i];
    if (op.phase != Phase::kForward && op.forward_op >= 0 && op.forward_op < n) {
      m.module_of_op[i] = m.module_of_op[op.forward_op];
    }
  }
  return m;
}

}  // namespace frugal

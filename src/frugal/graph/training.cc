#include "frugal/graph/training.h"

#include <algorithm>
#include <map>
#include <set>

#include "frugal/base/enum_names.h"
#include "frugal/graph/backward.h"

namespace frugal {
namespace {

constexpr const char* kOptimizerNames[] = {"sgd", "momentum", "adam", "none"};

struct OptimizerCost {
  OpKind kind;
  int state_per_param;  // tensors of optimizer state per parameter
  double flops_per_param;
};

// SGD: p -= lr*g (2). Momentum: b = m*b + g; p -= lr*b (4). Adam: two moment
// updates (3 + 4), bias corrections and p -= lr*m/(sqrt(v)+eps) (5).
OptimizerCost CostOf(Optimizer o) {
  switch (o) {
    case Optimizer::kSgd: return {OpKind::kSgd, 0, 2};
    case Optimizer::kSgdMomentum: return {OpKind::kSgdMomentum, 1, 4};
    case Optimizer::kAdam: return {OpKind::kAdam, 2, 12};
    case Optimizer::kNone: return {OpKind::kSgd, 0, 0};  // no update ops
  }
  return {OpKind::kAdam, 2, 12};
}

Op MakeOptimizerOp(const Op& fwd, int fwd_index, const TrainingOptions& options) {
  OptimizerCost c = CostOf(options.optimizer);
  Op u;
  u.name = fwd.name + ".update";
  u.kind = c.kind;
  u.type = OptimizerName(options.optimizer);
  u.phase = Phase::kOptimizer;
  u.forward_op = fwd_index;
  for (const auto& t : fwd.inputs) {
    if (t.role != TensorRole::kParameter) continue;
    u.inputs.push_back(t);
    TensorInfo g = t;
    g.name = "grad:" + t.name;
    g.role = TensorRole::kActivation;
    u.inputs.push_back(g);
    u.outputs.push_back(t);
    for (int s = 0; s < c.state_per_param; ++s) {
      TensorInfo st = t;
      st.name = "state" + std::to_string(s) + ":" + t.name;
      st.role = TensorRole::kBuffer;
      u.inputs.push_back(st);
      u.outputs.push_back(st);
    }
  }
  // Only the owner of a parameter (param_count > 0) updates it; tied uses
  // send their gradient to the owner.
  u.flops = c.flops_per_param * static_cast<double>(fwd.param_count);
  const int64_t per_param_bytes =
      fwd.param_count > 0 ? fwd.param_bytes / fwd.param_count : 4;
  u.bytes_read = (2 + c.state_per_param) * fwd.param_count * per_param_bytes;
  u.bytes_written = (1 + c.state_per_param) * fwd.param_count * per_param_bytes;
  return u;
}

}  // namespace

const char* OptimizerName(Optimizer o) { return EnumName(kOptimizerNames, o); }

bool ParseOptimizer(std::string_view name, Optimizer* out) {
  return ParseEnumName(name, kOptimizerNames, out);
}

Result<OpGraph> BuildTrainingGraph(const OpGraph& forward,
                                   const TrainingOptions& options) {
  if (forward.IsTraining()) {
    return FailedPrecondition("graph '" + forward.name +
                              "' already has backward or optimizer ops");
  }
  for (const Op& op : forward.ops) {
    if (op.kind == OpKind::kProfiled) {
      return FailedPrecondition(
          "graph '" + forward.name +
          "' is a profiled forward graph with no formulas to derive backward "
          "ops from; use its *_training.json variant");
    }
  }
  FRUGAL_ASSIGN_OR_RETURN(std::vector<int> order, forward.TopologicalOrder());
  const int n = forward.num_ops();
  const auto in_edges = forward.InEdges();
  const auto out_edges = forward.OutEdges();

  // Autograd's requires_grad: an op's output needs a gradient when the op
  // has parameters or any input comes from an op whose output needs one.
  std::vector<bool> rg(n, false);
  for (int u : order) {
    const Op& op = forward.ops[u];
    if (!HasGradient(op)) continue;
    for (const auto& t : op.inputs) rg[u] = rg[u] || t.role == TensorRole::kParameter;
    for (int e : in_edges[u]) rg[u] = rg[u] || rg[forward.edges[e].src];
  }

  OpGraph g = forward;
  // bwd[u]: indices in g of u's backward ops; data_grad_for[u][tensor]: the
  // backward op of u producing the gradient of input `tensor`.
  std::vector<std::vector<int>> bwd(n);
  std::vector<std::map<std::string, int>> data_grad_for(n);
  std::vector<int> weight_grad(n, -1);

  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int u = *it;
    if (!rg[u]) continue;
    const Op& op = forward.ops[u];
    // Which activation inputs need a gradient: those fed by an op whose
    // output needs one (matched by tensor name).
    std::set<std::string> grad_tensors;
    for (int e : in_edges[u]) {
      if (rg[forward.edges[e].src]) grad_tensors.insert(forward.edges[e].tensor);
    }
    std::vector<bool> grad_inputs;
    for (const auto& t : op.inputs) {
      if (t.role == TensorRole::kActivation) {
        grad_inputs.push_back(grad_tensors.count(t.name) > 0);
      }
    }
    int fan_out = 0;
    for (int e : out_edges[u]) fan_out += rg[forward.edges[e].dst] ? 1 : 0;
    std::vector<Op> ops = MakeBackwardOps(op, grad_inputs, fan_out);
    int64_t saved_bytes = 0;
    for (const auto& t : SavedForBackward(op)) saved_bytes += t.Bytes();
    for (Op& b : ops) {
      b.forward_op = u;
      const int bi = g.AddOp(std::move(b));
      const Op& added = g.ops[bi];
      bwd[u].push_back(bi);
      g.AddEdge(u, bi, saved_bytes, "saved:" + op.name);
      if (added.grad == GradRole::kWeight) weight_grad[u] = bi;
      for (const auto& t : added.outputs) {
        if (t.name.rfind("grad:", 0) == 0) data_grad_for[u][t.name.substr(5)] = bi;
      }
    }
    // Gradients flow from each consumer's data-gradient op into u's
    // backward ops, along the reversed forward edge.
    for (int e : out_edges[u]) {
      const Edge& fe = forward.edges[e];
      auto d = data_grad_for[fe.dst].find(fe.tensor);
      if (d == data_grad_for[fe.dst].end()) continue;
      for (int bi : bwd[u]) g.AddEdge(d->second, bi, fe.bytes, "grad:" + fe.tensor);
    }
  }

  // One optimizer update per parameter owner, fed by every weight gradient
  // of that parameter (tied weights have several).
  std::map<std::string, int> update_of_param;
  for (int u : order) {
    const Op& op = forward.ops[u];
    if (op.param_count <= 0 || options.optimizer == Optimizer::kNone) continue;
    const int ui = g.AddOp(MakeOptimizerOp(op, u, options));
    for (const auto& t : op.inputs) {
      if (t.role == TensorRole::kParameter) update_of_param.emplace(t.name, ui);
    }
  }
  for (int u : order) {
    const Op& op = forward.ops[u];
    const int src = weight_grad[u] >= 0 ? weight_grad[u]
                                        : (bwd[u].empty() ? -1 : bwd[u].back());
    if (src < 0) continue;
    std::set<int> targets;
    for (const auto& t : op.inputs) {
      if (t.role != TensorRole::kParameter) continue;
      auto it = update_of_param.find(t.name);
      if (it != update_of_param.end() && targets.insert(it->second).second) {
        g.AddEdge(src, it->second, t.Bytes(), "grad:" + t.name);
      }
    }
  }
  return g;
}

namespace {

bool HasMeasuredMemory(const OpGraph& g) {
  return std::any_of(g.ops.begin(), g.ops.end(),
                     [](const Op& op) { return op.measured_mem_bytes >= 0; });
}

// What the forward ops hold: parameters, buffers (on their first user) and
// the tensors saved for backward (on their first saver), per op.
struct ForwardHoldings {
  std::vector<int64_t> params, buffers, saved;
};

ForwardHoldings HoldingsOf(const OpGraph& g, MemoryBreakdown* m) {
  const size_t n = g.ops.size();
  ForwardHoldings h{std::vector<int64_t>(n, 0), std::vector<int64_t>(n, 0),
                    std::vector<int64_t>(n, 0)};
  std::set<std::string> seen_buffers, seen_saved;
  for (size_t i = 0; i < n; ++i) {
    const Op& op = g.ops[i];
    if (op.phase != Phase::kForward) continue;
    h.params[i] = op.param_bytes;
    for (const auto& t : op.inputs) {
      if (t.role == TensorRole::kBuffer && seen_buffers.insert(t.name).second) {
        h.buffers[i] += t.Bytes();
      }
    }
    for (const auto& t : SavedForBackward(op)) {
      if (seen_saved.insert(t.name).second) h.saved[i] += t.Bytes();
    }
    m->param_bytes += h.params[i];
    m->buffer_bytes += h.buffers[i];
    m->activation_bytes += h.saved[i];
  }
  return h;
}

// Inference liveness: a tensor lives from its producer until its last
// consumer. `held[u]`: bytes of u's outputs live at the (first) peak.
struct Liveness {
  int64_t peak_bytes = 0;
  std::vector<int64_t> held;
};

Liveness InferencePeak(const OpGraph& g) {
  Liveness l;
  l.held.assign(g.ops.size(), 0);
  auto order = g.TopologicalOrder();
  if (!order.ok()) return l;
  const auto in_edges = g.InEdges();
  auto out_bytes = [&](int u) {
    int64_t b = 0;
    for (const auto& t : g.ops[u].outputs) b += t.Bytes();
    return b;
  };
  // Two passes: find the step of the peak, then replay up to it.
  int peak_step = -1;
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<int> remaining(g.ops.size(), 0);
    for (const Edge& e : g.edges) ++remaining[e.src];
    std::vector<bool> live(g.ops.size(), false);
    int64_t bytes = 0;
    for (size_t k = 0; k < order->size(); ++k) {
      const int u = (*order)[k];
      bytes += out_bytes(u);
      live[u] = true;
      if (pass == 0 && (peak_step < 0 || bytes > l.peak_bytes)) {
        l.peak_bytes = bytes;
        peak_step = static_cast<int>(k);
      }
      if (pass == 1 && static_cast<int>(k) == peak_step) {
        for (size_t v = 0; v < live.size(); ++v) {
          if (live[v]) l.held[v] = out_bytes(static_cast<int>(v));
        }
        break;
      }
      for (int e : in_edges[u]) {
        const int src = g.edges[e].src;
        if (--remaining[src] == 0) {
          bytes -= out_bytes(src);
          live[src] = false;
        }
      }
      if (remaining[u] == 0) {
        bytes -= out_bytes(u);
        live[u] = false;
      }
    }
  }
  return l;
}

}  // namespace

MemoryBreakdown EstimateMemory(const OpGraph& forward,
                               const TrainingOptions& options) {
  MemoryBreakdown m;
  if (HasMeasuredMemory(forward)) {
    int64_t measured = 0;
    for (const Op& op : forward.ops) measured += std::max<int64_t>(op.measured_mem_bytes, 0);
    m.training_bytes = m.inference_bytes = measured;
    return m;
  }
  HoldingsOf(forward, &m);
  m.grad_bytes = m.param_bytes;
  m.optimizer_state_bytes = CostOf(options.optimizer).state_per_param * m.param_bytes;
  m.inference_peak_activation_bytes = InferencePeak(forward).peak_bytes;
  m.training_bytes = m.param_bytes + m.buffer_bytes + m.grad_bytes +
                     m.optimizer_state_bytes + m.activation_bytes;
  m.inference_bytes = m.param_bytes + m.buffer_bytes + m.inference_peak_activation_bytes;
  return m;
}

StepMemory EstimateStepMemory(const OpGraph& step) {
  StepMemory s;
  s.training = step.IsTraining();
  const int n = step.num_ops();
  s.op_bytes.assign(n, 0);
  MemoryBreakdown& m = s.breakdown;
  if (HasMeasuredMemory(step)) {
    for (int i = 0; i < n; ++i) {
      s.op_bytes[i] = std::max<int64_t>(step.ops[i].measured_mem_bytes, 0);
      s.total_bytes += s.op_bytes[i];
    }
    m.training_bytes = m.inference_bytes = s.total_bytes;
    return s;
  }
  ForwardHoldings h = HoldingsOf(step, &m);
  for (int i = 0; i < n; ++i) s.op_bytes[i] = h.params[i] + h.buffers[i];
  if (s.training) {
    std::vector<int> weight_grad(n, -1);
    for (int i = 0; i < n; ++i) {
      const Op& op = step.ops[i];
      if (op.grad == GradRole::kWeight && op.forward_op >= 0 && op.forward_op < n &&
          weight_grad[op.forward_op] < 0) {
        weight_grad[op.forward_op] = i;
      }
    }
    std::set<std::string> seen_state;
    for (int i = 0; i < n; ++i) {
      const Op& op = step.ops[i];
      s.op_bytes[i] += h.saved[i];
      if (op.phase == Phase::kForward && op.param_bytes > 0) {
        s.op_bytes[weight_grad[i] >= 0 ? weight_grad[i] : i] += op.param_bytes;
        m.grad_bytes += op.param_bytes;
      }
      if (op.phase != Phase::kOptimizer) continue;
      for (const auto& t : op.outputs) {
        if (t.role == TensorRole::kBuffer && seen_state.insert(t.name).second) {
          s.op_bytes[i] += t.Bytes();
          m.optimizer_state_bytes += t.Bytes();
        }
      }
    }
    m.training_bytes = m.param_bytes + m.buffer_bytes + m.grad_bytes +
                       m.optimizer_state_bytes + m.activation_bytes;
    s.total_bytes = m.training_bytes;
  } else {
    Liveness l = InferencePeak(step);
    for (int i = 0; i < n; ++i) s.op_bytes[i] += l.held[i];
    m.inference_peak_activation_bytes = l.peak_bytes;
    m.inference_bytes = m.param_bytes + m.buffer_bytes + l.peak_bytes;
    s.total_bytes = m.inference_bytes;
  }
  return s;
}

OpGraph InferenceGraph(OpGraph forward) {
  for (Op& op : forward.ops) {
    if (op.kind != OpKind::kDropout && op.attrs.GetInt("training_only", 0) == 0) continue;
    op.attrs.ints["view"] = {1};
    op.flops = 0;
    op.bytes_read = 0;
    op.bytes_written = 0;
  }
  return forward;
}

}  // namespace frugal

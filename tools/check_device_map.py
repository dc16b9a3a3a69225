#!/usr/bin/python3
"""Checks a placement.json's device_map against a real PyTorch module tree.

    tools/check_device_map.py PLACEMENT --torchvision resnet50
    tools/check_device_map.py PLACEMENT --hf-config config.json   (GPT-2 family)

Builds the model on the CPU (no weights are downloaded: torchvision's
architecture with random weights, or GPT2LMHeadModel's module tree rebuilt
from the config with Hugging Face's module names), then checks that

  1. every name in device_map is a module of the model ("" is the model);
  2. every parameter is covered by exactly one device_map entry, and tied
     parameters (GPT-2's lm_head and wte) map to one GPU;
  3. replaying the placement's forward schedule ("modules": start / end per
     module) on the real module graph, no module starts before the modules
     that produce its inputs ended: one forward pass on a small input with
     forward hooks records which module outputs reach each module's inputs
     (through the autograd graph, so functional ops in between are seen).

Prints one line per problem and a summary; exit 0 when all hold, 1 when one
fails, 2 on usage errors, 77 when python3-torch is missing (CTest's skip).
"""

import argparse
import json
import math
import sys


def fail_usage(msg):
    print(f"check_device_map: {msg}", file=sys.stderr)
    sys.exit(2)


try:
    import torch
    from torch import nn
except ImportError:
    print("check_device_map: python3-torch is not installed; skipping", file=sys.stderr)
    sys.exit(77)


# --- GPT-2 with Hugging Face's module names -------------------------------

class Conv1D(nn.Module):
    """HF's GPT-2 linear layer: weight [in, out]."""

    def __init__(self, n_in, n_out):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(n_in, n_out) * 0.02)
        self.bias = nn.Parameter(torch.zeros(n_out))

    def forward(self, x):
        return torch.addmm(self.bias, x.reshape(-1, x.shape[-1]), self.weight).reshape(
            *x.shape[:-1], -1)


class Attention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.c_attn = Conv1D(d, 3 * d)
        self.c_proj = Conv1D(d, d)
        self.attn_dropout = nn.Dropout(0.0)
        self.resid_dropout = nn.Dropout(0.0)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        scores = q @ k.transpose(-1, -2) / math.sqrt(d // self.heads)
        mask = torch.tril(torch.ones(t, t, dtype=torch.bool))
        scores = scores.masked_fill(~mask, float("-inf"))
        ctx = self.attn_dropout(scores.softmax(-1)) @ v
        return self.resid_dropout(self.c_proj(ctx.transpose(1, 2).reshape(b, t, d)))


class Mlp(nn.Module):
    def __init__(self, d, inner):
        super().__init__()
        self.c_fc = Conv1D(d, inner)
        self.c_proj = Conv1D(inner, d)
        self.act = nn.GELU(approximate="tanh")
        self.dropout = nn.Dropout(0.0)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class Block(nn.Module):
    def __init__(self, d, heads, inner, eps):
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, eps=eps)
        self.attn = Attention(d, heads)
        self.ln_2 = nn.LayerNorm(d, eps=eps)
        self.mlp = Mlp(d, inner)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class Gpt2Model(nn.Module):
    def __init__(self, c):
        super().__init__()
        d = c["n_embd"]
        inner = c.get("n_inner") or 4 * d
        eps = c.get("layer_norm_epsilon", 1e-5)
        self.wte = nn.Embedding(c["vocab_size"], d)
        self.wpe = nn.Embedding(c["n_positions"], d)
        self.drop = nn.Dropout(0.0)
        self.h = nn.ModuleList(Block(d, c["n_head"], inner, eps) for _ in range(c["n_layer"]))
        self.ln_f = nn.LayerNorm(d, eps=eps)

    def forward(self, ids):
        pos = torch.arange(ids.shape[1]).unsqueeze(0)
        x = self.drop(self.wte(ids) + self.wpe(pos))
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


class Gpt2LMHeadModel(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.transformer = Gpt2Model(c)
        self.lm_head = nn.Linear(c["n_embd"], c["vocab_size"], bias=False)
        if c.get("tie_word_embeddings", True):
            self.lm_head.weight = self.transformer.wte.weight

    def forward(self, ids):
        return self.lm_head(self.transformer(ids))


def build_model(args):
    if args.torchvision:
        try:
            import torchvision
        except ImportError:
            print("check_device_map: python3-torchvision is not installed; skipping",
                  file=sys.stderr)
            sys.exit(77)
        ctor = getattr(torchvision.models, args.torchvision, None)
        if ctor is None:
            fail_usage(f"torchvision has no model '{args.torchvision}'")
        model = ctor(weights=None) if "weights" in ctor.__code__.co_varnames else ctor()
        size = args.image_size
        return model, torch.randn(1, 3, size, size)
    try:
        with open(args.hf_config) as f:
            c = json.load(f)
    except (OSError, ValueError) as e:
        fail_usage(f"{args.hf_config}: {e}")
    if c.get("model_type") != "gpt2":
        fail_usage(f"{args.hf_config}: model_type '{c.get('model_type')}' (only gpt2 is rebuilt)")
    return Gpt2LMHeadModel(c), torch.zeros(1, args.seq, dtype=torch.long)


# --- checks ---------------------------------------------------------------

def covering_entries(param_name, device_map):
    return [k for k in device_map if k == "" or param_name == k or param_name.startswith(k + ".")]


def check_names(model, device_map, problems):
    modules = dict(model.named_modules())
    for key in device_map:
        if key not in modules:
            problems.append(f"device_map names '{key}', which is not a module of the model")
    params = 0
    by_tensor = {}
    # Every (module, parameter) pair, so that a tied parameter counts under each name.
    named = [(f"{m}.{n}" if m else n, p) for m, mod in model.named_modules()
             for n, p in mod.named_parameters(recurse=False)]
    for name, p in named:
        params += 1
        entries = covering_entries(name, device_map)
        if len(entries) != 1:
            problems.append(f"parameter '{name}' is covered by {len(entries)} device_map "
                            f"entries ({', '.join(repr(e) for e in entries) or 'none'})")
            continue
        by_tensor.setdefault(id(p), set()).add((name, device_map[entries[0]]))
    for names in by_tensor.values():
        if len({d for _, d in names}) > 1:
            problems.append("tied parameters on different GPUs: " +
                            ", ".join(f"{n} -> {d}" for n, d in sorted(names)))
    return params


def producer_modules(tensors, owner, memo):
    """Modules whose outputs reach `tensors` through the autograd graph."""
    found = set()
    stack = [t.grad_fn for t in tensors if isinstance(t, torch.Tensor) and t.grad_fn is not None]
    seen = set()
    while stack:
        fn = stack.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if fn in owner:
            found.add(owner[fn])
            continue
        if fn in memo:
            found |= memo[fn]
            continue
        stack.extend(next_fn for next_fn, _ in fn.next_functions)
    return found


def flatten(x):
    if isinstance(x, torch.Tensor):
        return [x]
    if isinstance(x, (list, tuple)):
        return [t for y in x for t in flatten(y)]
    if isinstance(x, dict):
        return [t for y in x.values() for t in flatten(y)]
    return []


def check_order(model, example, spans, problems, tolerance_ms):
    modules = dict(model.named_modules())
    span = {s["name"]: s for s in spans}
    owner = {}  # grad_fn of a hooked module's output -> module name
    deps = []   # (producer, consumer)
    called = set()
    hooks = []
    for name in span:
        if name not in modules:
            problems.append(f"modules names '{name}', which is not a module of the model")
            continue

        def pre(mod, inputs, name=name):
            for p in producer_modules(flatten(inputs), owner, {}):
                if p != name:
                    deps.append((p, name))

        def post(mod, inputs, output, name=name):
            called.add(name)
            for t in flatten(output):
                if t.grad_fn is not None:
                    owner[t.grad_fn] = name

        hooks.append(modules[name].register_forward_pre_hook(pre))
        hooks.append(modules[name].register_forward_hook(post))
    model.train()
    with torch.enable_grad():
        model(example)
    for h in hooks:
        h.remove()
    for name in span:
        if name in modules and name not in called:
            problems.append(f"module '{name}' of the placement never ran in the model's forward")
    late = 0
    for p, c in sorted(set(deps)):
        if span[c]["start_ms"] + tolerance_ms < span[p]["end_ms"]:
            late += 1
            problems.append(f"'{c}' starts at {span[c]['start_ms']:.4f} ms (GPU "
                            f"{span[c]['device']}) before its input from '{p}' ends at "
                            f"{span[p]['end_ms']:.4f} ms (GPU {span[p]['device']})")
    return len(set(deps))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("placement", help="placement.json written by frugal place --out")
    src = ap.add_mutually_exclusive_group(required=True)
    src.add_argument("--torchvision", metavar="NAME", help="a torchvision model (resnet50, ...)")
    src.add_argument("--hf-config", metavar="CONFIG", help="a GPT-2 family HF config.json")
    ap.add_argument("--image-size", type=int, default=224)
    ap.add_argument("--seq", type=int, default=8, help="tokens of the replayed forward")
    ap.add_argument("--tolerance-ms", type=float, default=1e-6)
    args = ap.parse_args()
    try:
        with open(args.placement) as f:
            placement = json.load(f)
    except (OSError, ValueError) as e:
        print(f"check_device_map: {args.placement}: {e}", file=sys.stderr)
        return 1
    device_map = placement.get("device_map")
    spans = placement.get("modules")
    if not isinstance(device_map, dict) or not isinstance(spans, list):
        why = placement.get("device_map_note", "no device_map / modules")
        print(f"check_device_map: {args.placement}: {why}", file=sys.stderr)
        return 1
    torch.manual_seed(0)
    model, example = build_model(args)
    problems = []
    params = check_names(model, device_map, problems)
    deps = check_order(model, example, spans, problems, args.tolerance_ms)
    for p in problems:
        print(f"{args.placement}: {p}")
    verdict = "FAILED" if problems else "ok"
    print(f"{verdict}: {len(device_map)} device_map entries over {params} parameters, "
          f"{len(spans)} modules, {deps} module dependencies replayed, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

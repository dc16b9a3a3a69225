#!/usr/bin/python3
"""Writes the tiny ONNX exports that tools/frugal/cli_graph_test.sh prices.

    /usr/bin/python3 testdata/onnx/ops/make_ops.py

Each file is one small torch.nn.Module exported by torch.onnx.export (Debian's
python3-torch, eval mode, static shapes, batch 2) with the float initializers
stripped as tools/export_onnx.py strips them. expected.json holds, per file,
PyTorch's parameter count and the forward FLOPs by hand count (the formulas of
docs/graph.md applied to the module's layers, independently of the ONNX
graph), and where PyTorch's profiler counts the op (with_flops: mm, addmm,
bmm, conv2d, mul, add) its figure too.
"""

import json
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tools"))
from export_onnx import count_parameters, strip_weights  # noqa: E402

import onnx  # noqa: E402

OPSET = 17
B = 2


class ConvTranspose(nn.Module):
    """DCGAN-style 2D up-convolution, a grouped 1D and a 3D one."""

    def __init__(self):
        super().__init__()
        self.up2d = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.up1d = nn.ConvTranspose1d(8, 8, 3, groups=4, bias=False)
        self.up3d = nn.ConvTranspose3d(4, 2, 2, stride=2)
        self.conv3d = nn.Conv3d(2, 4, 3, padding=1)

    def forward(self, x, s, v):
        return self.up2d(x), self.up1d(s), self.conv3d(self.up3d(v))

    inputs = ((B, 16, 8, 8), (B, 8, 5), (B, 4, 2, 2, 2))

    @staticmethod
    def flops():
        up2d = 2 * (B * 16 * 64) * (8 * 16) + B * 8 * 16 * 16
        up1d = 2 * (B * 8 * 5) * (2 * 3)
        up3d = 2 * (B * 4 * 8) * (2 * 8) + B * 2 * 4 * 4 * 4
        y3 = B * 4 * 4 * 4 * 4
        conv3d = 2 * y3 * 2 * 27 + y3
        return up2d + up1d + up3d + conv3d


class Lstm(nn.Module):
    """Bidirectional two-layer LSTM, batch first."""

    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(10, 20, num_layers=2, bidirectional=True, batch_first=True)

    def forward(self, x):
        return self.rnn(x)[0]

    inputs = ((B, 5, 10),)

    @staticmethod
    def flops():
        cells = 2 * 5 * B  # directions x steps x batch
        def layer(i, h):
            return cells * (2 * 4 * h * (i + h) + 4 * h + 2 * 4 * h + 18 * h)
        return layer(10, 20) + layer(40, 20)


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(8, 16)
        self.cell = nn.RNN(16, 4, nonlinearity="tanh")

    def forward(self, x):
        return self.cell(self.rnn(x)[0])[0]

    inputs = ((6, B, 8),)  # sequence first

    @staticmethod
    def flops():
        cells = 6 * B
        gru = cells * (2 * 48 * (8 + 16) + 48 + 2 * 48 + 14 * 16)
        rnn = cells * (2 * 4 * (16 + 4) + 4 + 2 * 4 + 1 * 4)
        return gru + rnn


class Einsum(nn.Module):
    """Attention as einsums. ONNX 1.12's Einsum shape inference gives only the
    rank, so both results are graph outputs and annotate_outputs() writes
    their shapes from the PyTorch run."""

    def forward(self, q, k):
        s = torch.einsum("bhqd,bhkd->bhqk", q, k)
        return s, torch.einsum("...qk,...kd->...qd", s, k)

    inputs = ((B, 4, 8, 16), (B, 4, 8, 16))

    @staticmethod
    def flops():
        return 2 * (B * 4 * 8 * 8) * 16 + 2 * (B * 4 * 8 * 16) * 8


class Resize(nn.Module):
    def forward(self, x):
        a = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        b = F.interpolate(x, scale_factor=2, mode="nearest")
        c = F.interpolate(x, size=(12, 12), mode="bicubic", align_corners=False)
        return a, b, c

    inputs = ((B, 3, 8, 8),)

    @staticmethod
    def flops():
        return B * 3 * 16 * 16 * 2 * 4 + 0 + B * 3 * 12 * 12 * 2 * 16


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.prelu = nn.PReLU(4)

    def forward(self, x):
        y = self.prelu(x)
        y = F.elu(y) + F.selu(y) + F.leaky_relu(y) + F.hardswish(y) + F.hardsigmoid(y)
        return F.softplus(y) * torch.abs(y)

    inputs = ((B, 4, 6, 6),)

    @staticmethod
    def flops():
        n = B * 4 * 36
        # prelu 2; elu 4, selu 5, leaky 2, hardswish 4, hardsigmoid 3; 4 adds;
        # softplus 3, abs 1, mul 1.
        return n * (2 + 4 + 5 + 2 + 4 + 3 + 4 + 3 + 1 + 1)


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(8, affine=True)
        self.lnorm = nn.LayerNorm([6, 6])

    def forward(self, x):
        return self.lnorm(self.inorm(x))

    inputs = ((B, 8, 6, 6),)

    @staticmethod
    def flops():
        n = B * 8 * 36
        return 8 * n + 8 * n


class Misc(nn.Module):
    def forward(self, x):
        c = torch.cumsum(x, dim=1)
        v, _ = torch.topk(c, 3, dim=1)
        w = torch.where(x > 0, x, torch.zeros_like(x))
        t = w.repeat(2, 1)
        p = F.pad(x.unsqueeze(1), (1, 1), mode="reflect")
        return v, t, torch.floor(x), p

    inputs = ((B, 10),)

    @staticmethod
    def flops():
        n = B * 10
        # cumsum 1, topk compares + sort of 3 (sorted), greater 1, where 1.
        import math
        return n + n + B * 3 * math.log2(3) + n + n + n


class Loss(nn.Module):
    """nll_loss on log-probabilities (log_softmax + nll_loss would export as
    one SoftmaxCrossEntropyLoss)."""

    def forward(self, x, target):
        return F.nll_loss(torch.log(F.softmax(x, dim=1)), target)

    inputs = ((B, 10, 3), (B, 3))

    @staticmethod
    def make_inputs():
        return torch.randn(B, 10, 3), torch.randint(0, 10, (B, 3))

    @staticmethod
    def flops():
        # softmax 5, log 1 per element; pick, weight, mean per row.
        return 6 * B * 10 * 3 + 2 * B * 3


MODULES = {
    "conv_transpose": ConvTranspose,
    "lstm": Lstm,
    "gru_rnn": Gru,
    "einsum": Einsum,
    "resize": Resize,
    "activations": Activations,
    "norms": Norms,
    "misc": Misc,
    "loss": Loss,
}


def annotate_outputs(proto, outputs):
    """Replaces symbolic dims of the graph outputs by the shapes PyTorch
    computed (only where the exporter could not infer them)."""
    if isinstance(outputs, torch.Tensor):
        outputs = (outputs,)
    for value, tensor in zip(proto.graph.output, outputs):
        dims = value.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            continue
        for d, n in zip(dims, tensor.shape):
            d.Clear()
            d.dim_value = n


def profiler_flops(module, args):
    """FLOPs PyTorch's profiler counts (only a few aten ops), or None."""
    with torch.profiler.profile(with_flops=True) as prof:
        module(*args)
    total = sum(e.flops for e in prof.key_averages() if e.flops)
    return total or None


def main():
    torch.manual_seed(0)
    expected = {}
    for name, cls in MODULES.items():
        module = cls().eval()
        if hasattr(cls, "make_inputs"):
            args = cls.make_inputs()
        else:
            args = tuple(torch.randn(*shape) for shape in cls.inputs)
        path = os.path.join(HERE, name + ".onnx")
        with torch.no_grad():
            torch.onnx.export(module, args, path, opset_version=OPSET)
            prof = profiler_flops(module, args)
            outputs = module(*args)
        proto = onnx.load(path)
        strip_weights(proto)
        annotate_outputs(proto, outputs)
        onnx.save(proto, path)
        expected[name] = {
            "params": count_parameters(module),
            "flops_forward": cls.flops(),
            "profiler_flops": prof,
        }
        print(name, expected[name])
    with open(os.path.join(HERE, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()

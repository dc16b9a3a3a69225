#!/usr/bin/python3
"""Exports Gavel's seven training workloads to models/share/gavel/, weights stripped.

Gavel (OSDI'20) measured the throughput of these jobs alone and in pairs
(../shared/data/share/gavel/simulation_throughputs.json). frugal prices one
training step of each with Ceer (`frugal predict --train`) to give the
interference model what it knows about a job before it meets another: how much
of its measured step the GPU is busy and how compute-bound that work is.

The modules below are written from the architecture and defaults of Gavel's
workload scripts (workloads/pytorch/*, job_table.py's command lines); the
sizes Gavel reads from its data sets are set to the data sets' published
figures and named here:

  family          graph                                    input per sample
  ResNet-18       CIFAR ResNet-18 (3x3 stem, no max-pool)  3x32x32
  ResNet-50       torchvision resnet50                     3x224x224
  Transformer     6+6 layers, d 512, 8 heads, ffn 2048,    32 source, 31 target tokens
                  output projection tied to the target     (Multi30k: batches padded to
                  embedding; vocabularies 5,375 / 4,556     their longest sentence)
  LM              2-layer LSTM 200/200 over 35 tokens,     35 tokens
                  vocabulary 33,278 (Wikitext-2), untied
  Recommendation  autoencoder items -> 200 (tanh) -> items 26,744 items (ML-20M)
  A3C             4 conv + max-pool stages, LSTMCell 512,  1x80x80, batch 1; a step
                  actor (6) and critic heads               unrolls 20 frames (see below)
  CycleGAN        two ResNet generators (9 blocks) and     3x256x256, batch 1
                  two PatchGAN discriminators, one step's
                  forward passes (6 G, 6 D)

A3C's step is 20 sequential single-frame forwards and one backward: the
exported graph is one frame, and the caller multiplies (`STEP_REPEAT` in
models/share/gavel/README.md).

Run with Debian's interpreter (python3-torch, python3-onnx):

    /usr/bin/python3 tools/export_gavel_models.py [--out models/share/gavel] [--only NAME ...]

Training-mode export, opset 14, dynamic batch dim "batch", floating-point
initializer data stripped (tools/export_onnx.py). Not run in CI: the outputs
are committed.
"""

import os
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_onnx import count_parameters, export_stripped, run_cli  # noqa: E402

OPSET = 14
warnings.filterwarnings("ignore", message=".*Removing mutation from node aten::add_.*")
warnings.filterwarnings("ignore", category=UserWarning)


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.short = nn.Sequential()
        if stride != 1 or cin != cout:
            self.short = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False),
                                       nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)))
        return F.relu(self.b2(self.c2(y)) + self.short(x))


class CifarResNet18(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
        self.b = nn.BatchNorm2d(64)
        layers, cin = [], 64
        for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
            layers += [BasicBlock(cin, cout, stride), BasicBlock(cout, cout, 1)]
            cin = cout
        self.layers = nn.Sequential(*layers)
        self.fc = nn.Linear(512, 10)

    def forward(self, x):
        y = self.layers(F.relu(self.b(self.c(x))))
        return self.fc(torch.flatten(F.avg_pool2d(y, 4), 1))


class Translation(nn.Module):
    def __init__(self, src_vocab=5375, tgt_vocab=4556, d=512):
        super().__init__()
        self.src = nn.Embedding(src_vocab, d)
        self.tgt = nn.Embedding(tgt_vocab, d)
        self.t = nn.Transformer(d, 8, 6, 6, 2048, dropout=0.1, batch_first=True)
        self.d = d

    def forward(self, src, tgt):
        y = self.t(self.src(src), self.tgt(tgt))
        return F.linear(y, self.tgt.weight) * self.d ** -0.5


class LanguageModel(nn.Module):
    def __init__(self, vocab=33278, d=200):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.drop = nn.Dropout(0.2)
        # nn.LSTM(d, d, 2, dropout=0.2) as two layers: torch cannot export an
        # LSTM's inter-layer dropout in training mode.
        self.rnn1 = nn.LSTM(d, d)
        self.rnn2 = nn.LSTM(d, d)
        self.dec = nn.Linear(d, vocab)

    def forward(self, ids):  # [35, batch]
        y, _ = self.rnn1(self.drop(self.emb(ids)))
        y, _ = self.rnn2(self.drop(y))
        return self.dec(self.drop(y))


class Autoencoder(nn.Module):
    def __init__(self, items=26744, hidden=200):
        super().__init__()
        self.enc = nn.Linear(items, hidden)
        self.dec = nn.Linear(hidden, items)
        self.drop = nn.Dropout(0.5)

    def forward(self, x):  # [batch, items]
        x = self.drop(F.normalize(x, dim=1))
        return self.dec(torch.tanh(self.enc(x)))


class A3C(nn.Module):
    def __init__(self, actions=6):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(1, 32, 5, 1, 2), nn.Conv2d(32, 32, 5, 1, 1),
                                    nn.Conv2d(32, 64, 4, 1, 1), nn.Conv2d(64, 64, 3, 1, 1)])
        self.lstm = nn.LSTMCell(1024, 512)
        self.critic = nn.Linear(512, 1)
        self.actor = nn.Linear(512, actions)

    def forward(self, x, hx, cx):  # x [batch, 1, 80, 80]
        for c in self.convs:
            x = F.relu(F.max_pool2d(c(x), 2))
        hx, cx = self.lstm(torch.flatten(x, 1), (hx, cx))
        return self.critic(hx), self.actor(hx), hx, cx


class Residual(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3), nn.InstanceNorm2d(c),
                                  nn.ReLU(), nn.ReflectionPad2d(1), nn.Conv2d(c, c, 3),
                                  nn.InstanceNorm2d(c))

    def forward(self, x):
        return x + self.body(x)


def generator(blocks=9):
    m = [nn.ReflectionPad2d(3), nn.Conv2d(3, 64, 7), nn.InstanceNorm2d(64), nn.ReLU()]
    for cin, cout in [(64, 128), (128, 256)]:
        m += [nn.Conv2d(cin, cout, 3, 2, 1), nn.InstanceNorm2d(cout), nn.ReLU()]
    m += [Residual(256) for _ in range(blocks)]
    for cin, cout in [(256, 128), (128, 64)]:
        m += [nn.Upsample(scale_factor=2), nn.Conv2d(cin, cout, 3, 1, 1), nn.InstanceNorm2d(cout),
              nn.ReLU()]
    m += [nn.ReflectionPad2d(3), nn.Conv2d(64, 3, 7), nn.Tanh()]
    return nn.Sequential(*m)


def discriminator():
    m, cin = [nn.Conv2d(3, 64, 4, 2, 1), nn.LeakyReLU(0.2)], 64
    for cout in [128, 256, 512]:
        m += [nn.Conv2d(cin, cout, 4, 2, 1), nn.InstanceNorm2d(cout), nn.LeakyReLU(0.2)]
        cin = cout
    m += [nn.ZeroPad2d((1, 0, 1, 0)), nn.Conv2d(512, 1, 4, padding=1)]
    return nn.Sequential(*m)


class CycleGanStep(nn.Module):
    """The forward passes of one CycleGAN step: generators (identity, GAN,
    cycle: 6 G, 2 D) then each discriminator on a real and a fake image."""

    def __init__(self):
        super().__init__()
        self.g_ab, self.g_ba = generator(), generator()
        self.d_a, self.d_b = discriminator(), discriminator()

    def forward(self, a, b):
        fake_b, fake_a = self.g_ab(a), self.g_ba(b)
        loss = (self.g_ba(a) - a).abs().mean() + (self.g_ab(b) - b).abs().mean()
        loss = loss + (self.d_b(fake_b) - 1).pow(2).mean() + (self.d_a(fake_a) - 1).pow(2).mean()
        loss = loss + (self.g_ba(fake_b) - a).abs().mean() + (self.g_ab(fake_a) - b).abs().mean()
        for d, real, fake in [(self.d_a, a, fake_a), (self.d_b, b, fake_b)]:
            loss = loss + (d(real) - 1).pow(2).mean() + d(fake.detach()).pow(2).mean()
        return loss


def ids(*shape, high):
    return torch.randint(0, high, shape)


# name -> (family in Gavel's keys, constructor, example inputs at batch 2,
#          input names, the batch dim of each input)
MODELS = {
    "resnet18_cifar": ("ResNet-18", CifarResNet18, lambda: (torch.zeros(2, 3, 32, 32),),
                       ["images"], [0]),
    "resnet50": ("ResNet-50", lambda: torchvision.models.resnet50(weights=None),
                 lambda: (torch.zeros(2, 3, 224, 224),), ["images"], [0]),
    "transformer": ("Transformer", Translation,
                    lambda: (ids(2, 32, high=5375), ids(2, 31, high=4556)), ["src", "tgt"], [0, 0]),
    "lm": ("LM", LanguageModel, lambda: (ids(35, 2, high=33278),), ["tokens"], [1]),
    "recommendation": ("Recommendation", Autoencoder, lambda: (torch.rand(2, 26744),),
                       ["ratings"], [0]),
    "a3c": ("A3C", A3C, lambda: (torch.zeros(2, 1, 80, 80), torch.zeros(2, 512),
                                 torch.zeros(2, 512)), ["frame", "hx", "cx"], [0, 0, 0]),
    "cyclegan": ("CycleGAN", CycleGanStep,
                 lambda: (torch.zeros(2, 3, 256, 256), torch.zeros(2, 3, 256, 256)),
                 ["image_a", "image_b"], [0, 0]),
}


def export(name, out_dir):
    family, ctor, inputs, names, batch_dims = MODELS[name]
    torch.manual_seed(0)
    model = ctor()
    model.train()
    path = os.path.join(out_dir, name + ".onnx")
    export_stripped(
        model, inputs(), path, names, {n: {d: "batch"} for n, d in zip(names, batch_dims)}, OPSET,
        "Gavel workload %s (%s), written from Gavel's workload scripts; random init, "
        "training-mode export (opset %d, torch %s), floating-point initializer data "
        "stripped by tools/export_gavel_models.py; %d trainable parameters"
        % (family, name, OPSET, torch.__version__, count_parameters(model)))
    print("%-15s %-15s %11d params %7d bytes  %s"
          % (name, family, count_parameters(model), os.path.getsize(path), path))


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default = os.path.normpath(os.path.join(here, "..", "models", "share", "gavel"))
    return run_cli(__doc__, default, MODELS, export)


if __name__ == "__main__":
    sys.exit(main())

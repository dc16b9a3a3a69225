#!/usr/bin/python3
"""Exports the ONNX import corpus to testdata/onnx/corpus/, weights stripped.

Run with Debian's interpreter (python3-torch 1.13, python3-torchvision 0.14,
python3-onnx):

    /usr/bin/python3 tools/export_onnx_corpus.py [--out DIR] [--only NAME ...]

The corpus is what PyTorch users export with torch.onnx.export: torchvision
classifiers and segmentation models, and ordinary nn.Modules (Transformer
encoders, attention, recurrent nets, transposed convs, einsum, interpolate,
pad), at opsets 11 / 13 / 15 / 17, in eval and TrainingMode.TRAINING, with
static shapes and with dynamic batch, sequence and height / width axes, plus
export_params=False and keep_initializers_as_inputs=True. Small input sizes
and small configurations keep the files and the run short; the families and
the export paths are the real ones.

Floating-point initializers lose their data (tools/export_onnx.py's
strip_weights) except tiny ones (at most KEEP_FLOAT_ELEMS elements: Resize
scales and other folded constants that shapes may depend on); integer
tensors and Constant nodes are kept.

Beside the files, reference.json records for each one:

  params         the parameters frugal must report for the file: the unique
                 floating-point initializers that some node reads, plus the
                 floating-point graph inputs that are not data inputs
                 (weights exported as inputs), less BatchNormalization's
                 running mean / var (inputs 3 and 4: buffers). For training
                 exports (no constant folding) this equals torch_params,
                 and the script checks it. Eval exports fold BatchNorm into
                 the preceding Conv (the Conv gains a bias, the BN's scale and
                 shift disappear) and fold other constant subgraphs, so the
                 file holds a different count from the nn.Module.
  torch_params   sum(p.numel() for p in model.parameters()), unique tensors.
  flops_compute  the independent forward count: 2 FLOPs per multiply-add of
                 every aten convolution (direct and transposed), mm, addmm,
                 bmm and baddbmm the PyTorch forward at the same input dims
                 runs, observed with a TorchDispatchMode (so Linear, matmul,
                 einsum, attention and LSTM / GRU cells are counted through
                 the kernels they decompose to). Bias adds, elementwise ops,
                 normalisation and pooling are not counted. frugal's
                 comparable number is the forward FLOPs of its compute-category
                 ops (conv, matmul, bmm and the recurrent / einsum kernels),
                 which include the bias adds (under 1 % here).
  inputs         the input dims the reference was computed at.
  flags          the frugal flags (--batch, --dim NAME=VALUE) that set the
                 file's symbolic dims to those dims.
  train          whether it was exported in training mode.

Not run in CI: the outputs are committed.
"""

import argparse
import json
import os
import sys
import warnings

import onnx
import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
from torch.utils._python_dispatch import TorchDispatchMode

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from export_onnx import FLOAT_TYPES, count_parameters  # noqa: E402

KEEP_FLOAT_ELEMS = 16

warnings.filterwarnings("ignore")
tv = torchvision.models


# ---------------------------------------------------------------- counting
def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


class ComputeFlops(TorchDispatchMode):
    """2 x multiply-adds of the GEMM / convolution kernels a forward runs."""

    def __init__(self):
        super().__init__()
        self.flops = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        if name == "convolution":
            x, w = args[0], args[1]
            transposed, groups = args[6], args[8]
            if transposed:
                # Each input element scatters into C_out/groups x k outputs.
                macs = x.numel() * _numel(w.shape[1:])
            else:
                macs = out.numel() * _numel(w.shape[1:])
            del groups
            self.flops += 2 * macs
        elif name in ("mm", "addmm"):
            a = args[1] if name == "addmm" else args[0]
            self.flops += 2 * out.numel() * a.shape[-1]
        elif name in ("bmm", "baddbmm"):
            a = args[1] if name == "baddbmm" else args[0]
            self.flops += 2 * out.numel() * a.shape[-1]
        return out


def count_flops(model, inputs):
    # With autograd on, nn.MultiheadAttention and nn.TransformerEncoderLayer
    # take their composite path (the eval-mode fused kernels would hide the
    # GEMMs from the dispatcher), which is also the path the export traces.
    mode = ComputeFlops()
    with torch.enable_grad(), mode:
        model(*inputs)
    return mode.flops


# ---------------------------------------------------------------- modules
class TinyConvNet(nn.Module):
    """Conv stem for the op-focused modules below."""

    def __init__(self, body):
        super().__init__()
        self.stem = nn.Conv2d(3, 8, 3, padding=1)
        self.body = body
        self.head = nn.Conv2d(8, 4, 1)

    def forward(self, x):
        return self.head(self.body(F.relu(self.stem(x))))


class Upsample2x(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.conv = nn.Conv2d(8, 8, 3, padding=1)

    def forward(self, x):
        kw = {} if self.mode == "nearest" else {"align_corners": False}
        return self.conv(F.interpolate(x, scale_factor=2, mode=self.mode, **kw))


class ResizeBack(nn.Module):
    """Down, then back up to the input's own (dynamic) size."""

    def __init__(self):
        super().__init__()
        self.down = nn.Conv2d(8, 8, 3, stride=2, padding=1)

    def forward(self, x):
        y = self.down(x)
        return x + F.interpolate(y, size=x.shape[-2:], mode="bilinear",
                                 align_corners=False)


class PadConv(nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode
        self.conv = nn.Conv2d(8, 8, 3)

    def forward(self, x):
        return self.conv(F.pad(x, (1, 1, 1, 1), mode=self.mode))


class ConvTransposeDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv2d(3, 16, 3, stride=2, padding=1)
        self.up1 = nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)
        self.up2 = nn.ConvTranspose2d(8, 4, 3, stride=1, padding=1, groups=2)

    def forward(self, x):
        return self.up2(F.relu(self.up1(F.relu(self.enc(x)))))


class Conv3dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv3d(3, 8, 3, padding=1)
        self.bn = nn.BatchNorm3d(8)
        self.c2 = nn.Conv3d(8, 8, 3, stride=2, padding=1)
        self.fc = nn.Linear(8, 5)

    def forward(self, x):
        y = self.c2(F.relu(self.bn(self.c1(x))))
        return self.fc(y.mean(dim=(2, 3, 4)))


class Conv1dNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(16, 32, 5, padding=2)
        self.c2 = nn.Conv1d(32, 32, 3, dilation=2, padding=2, groups=4)
        self.fc = nn.Linear(32, 10)

    def forward(self, x):  # [batch, 16, seq]
        y = F.gelu(self.c2(F.relu(self.c1(x))))
        return self.fc(y.transpose(1, 2))


class EinsumAttention(nn.Module):
    def __init__(self, d=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):  # [batch, seq, d]
        b, s, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q = q.reshape(b, s, self.heads, d // self.heads)
        k = k.reshape(b, s, self.heads, d // self.heads)
        v = v.reshape(b, s, self.heads, d // self.heads)
        att = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
        y = torch.einsum("bhqk,bkhd->bqhd", att, v).reshape(b, s, d)
        return self.out(y)


class Encoder(nn.Module):
    def __init__(self, batch_first=True):
        super().__init__()
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.1,
                                           batch_first=batch_first)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)

    def forward(self, x):
        return self.enc(x)


class TokenEncoder(nn.Module):
    """Token ids in (an index input), tied embedding / output projection."""

    def __init__(self, vocab=100, d=32):
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(64, d))
        layer = nn.TransformerEncoderLayer(d, 4, 64, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 1, enable_nested_tensor=False)
        self.lm = nn.Linear(d, vocab, bias=False)
        self.lm.weight = self.emb.weight

    def forward(self, ids):
        x = self.emb(ids) + self.pos[: ids.shape[1]]
        return self.lm(self.enc(x))


class Mha(nn.Module):
    def __init__(self):
        super().__init__()
        self.attn = nn.MultiheadAttention(32, 4)

    def forward(self, q, kv):  # [seq, batch, 32], [kv_seq, batch, 32]
        return self.attn(q, kv, kv, need_weights=False)[0]


class Recurrent(nn.Module):
    def __init__(self, cell, **kw):
        super().__init__()
        self.rnn = cell(16, 24, **kw)
        width = 24 * (2 if kw.get("bidirectional") else 1)
        self.fc = nn.Linear(width, 6)

    def forward(self, x):
        return self.fc(self.rnn(x)[0])


def small_vit():
    return torchvision.models.VisionTransformer(
        image_size=64, patch_size=16, num_layers=2, num_heads=4,
        hidden_dim=64, mlp_dim=128, num_classes=10)


def small_swin():
    from torchvision.models.swin_transformer import SwinTransformer
    return SwinTransformer(patch_size=[4, 4], embed_dim=32, depths=[2, 2],
                           num_heads=[2, 4], window_size=[4, 4],
                           stochastic_depth_prob=0.0, num_classes=10)


def seg(ctor):
    return lambda: ctor(weights=None, weights_backbone=None, num_classes=5,
                        aux_loss=None)


def lraspp():
    return tv.segmentation.lraspp_mobilenet_v3_large(
        weights=None, weights_backbone=None, num_classes=5)


class SegOut(nn.Module):
    """Segmentation models return a dict; export its "out" tensor."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x)["out"]


# ---------------------------------------------------------------- corpus
IMG = lambda side, b=1: [("input", (b, 3, side, side))]  # noqa: E731
DYN_B = {"input": {0: "batch"}}
DYN_HW = {"input": {0: "batch", 2: "height", 3: "width"}}

# name -> dict(model, inputs [(name, dims[, dtype])], opset, train, dynamic,
#              export_params, keep_inits, fold)
CORPUS = {}


def add(name, model, inputs, opset, train=False, dynamic=None, **kw):
    CORPUS[name] = dict(model=model, inputs=inputs, opset=opset, train=train,
                        dynamic=dynamic or {}, **kw)


# torchvision classifiers
add("resnet18_eval_op11_static", lambda: tv.resnet18(), IMG(64), 11)
add("resnet18_train_op13_dynbatch", lambda: tv.resnet18(), IMG(64, 2), 13,
    train=True, dynamic=DYN_B)
add("resnet18_noparams_op13_dynbatch", lambda: tv.resnet18(), IMG(64, 2), 13,
    dynamic=DYN_B, export_params=False)
add("resnet18_initsasinputs_op11", lambda: tv.resnet18(), IMG(64), 11,
    keep_inits=True)
add("resnet50_eval_op17_dynhw", lambda: tv.resnet50(), IMG(96, 2), 17,
    dynamic=DYN_HW)
add("resnet34_noparams_op15_train", lambda: tv.resnet34(), IMG(64), 15,
    train=True, export_params=False)
add("vgg11bn_train_op11", lambda: tv.vgg11_bn(init_weights=False), IMG(224),
    11, train=True)
add("vgg11bn_eval_op15_dynbatch", lambda: tv.vgg11_bn(init_weights=False),
    IMG(224, 2), 15, dynamic=DYN_B)
add("densenet121_train_op13", lambda: tv.densenet121(), IMG(64), 13,
    train=True)
add("densenet121_eval_op17_dynbatch", lambda: tv.densenet121(), IMG(64, 2),
    17, dynamic=DYN_B)
add("shufflenetv2_x05_train_op11", lambda: tv.shufflenet_v2_x0_5(), IMG(64),
    11, train=True)
add("shufflenetv2_x10_eval_op15_dynhw", lambda: tv.shufflenet_v2_x1_0(),
    IMG(96), 15, dynamic=DYN_HW)
add("mobilenetv3s_train_op13", lambda: tv.mobilenet_v3_small(), IMG(64), 13,
    train=True)
add("mobilenetv3l_eval_op17_dynbatch", lambda: tv.mobilenet_v3_large(),
    IMG(64, 2), 17, dynamic=DYN_B)
add("mobilenetv2_initsasinputs_op15_dynbatch", lambda: tv.mobilenet_v2(),
    IMG(64, 2), 15, dynamic=DYN_B, keep_inits=True)
# Training-mode stochastic depth draws a Bernoulli mask, which torch 1.13
# cannot export: trained exports use stochastic_depth_prob=0.
add("efficientnetb0_train_op13",
    lambda: tv.efficientnet_b0(stochastic_depth_prob=0.0), IMG(64), 13,
    train=True)
add("efficientnetb0_eval_op15_dynhw", lambda: tv.efficientnet_b0(), IMG(96),
    15, dynamic=DYN_HW)
add("convnext_tiny_eval_op17", lambda: tv.convnext_tiny(), IMG(64), 17)
add("convnext_tiny_train_op13_dynbatch",
    lambda: tv.convnext_tiny(stochastic_depth_prob=0.0),
    IMG(64, 2), 13, train=True, dynamic=DYN_B)
add("regnety400mf_train_op11", lambda: tv.regnet_y_400mf(), IMG(64), 11,
    train=True)
add("regnetx400mf_eval_op15_dynbatch", lambda: tv.regnet_x_400mf(),
    IMG(64, 2), 15, dynamic=DYN_B)
add("vit_b16_eval_op17", lambda: tv.vit_b_16(), IMG(224), 17)
add("vit_small_train_op13_dynbatch", small_vit, IMG(64, 2), 13, train=True,
    dynamic=DYN_B)
add("vit_small_eval_op11", small_vit, IMG(64), 11)
add("swin_t_eval_op17", lambda: tv.swin_t(), IMG(224), 17)
add("swin_small_train_op15_dynbatch", small_swin, IMG(64, 2), 15, train=True,
    dynamic=DYN_B)
add("googlenet_train_op13", lambda: tv.googlenet(aux_logits=False, init_weights=False),
    IMG(64), 13, train=True)
add("squeezenet10_eval_op15_dynbatch", lambda: tv.squeezenet1_0(), IMG(64, 2),
    15, dynamic=DYN_B)
add("mnasnet05_train_op11", lambda: tv.mnasnet0_5(), IMG(64), 11, train=True)
add("resnext50_eval_op17", lambda: tv.resnext50_32x4d(), IMG(64), 17)
add("efficientnetv2s_eval_op15_dynbatch", lambda: tv.efficientnet_v2_s(),
    IMG(64, 2), 15, dynamic=DYN_B)
add("maxvit_t_eval_op17", lambda: tv.maxvit_t(), IMG(224), 17)
# torchvision video classifiers (3-D convs): clips [N, 3, frames, H, W]
CLIP = [("input", (1, 3, 8, 56, 56))]
add("r3d18_train_op13", lambda: tv.video.r3d_18(), CLIP, 13, train=True)
add("r2plus1d18_eval_op15_dynbatch", lambda: tv.video.r2plus1d_18(),
    [("input", (2, 3, 8, 56, 56))], 15, dynamic=DYN_B)
add("s3d_train_op17", lambda: tv.video.s3d(), [("input", (1, 3, 16, 224, 224))], 17,
    train=True)
# segmentation heads
add("fcn_resnet50_eval_op11", lambda: SegOut(seg(tv.segmentation.fcn_resnet50)()),
    IMG(64), 11)
add("deeplabv3_mbv3_eval_op13_dynhw",
    lambda: SegOut(seg(tv.segmentation.deeplabv3_mobilenet_v3_large)()),
    IMG(96), 13, dynamic=DYN_HW)
add("deeplabv3_resnet50_train_op17",
    lambda: SegOut(seg(tv.segmentation.deeplabv3_resnet50)()), IMG(64, 2), 17,
    train=True)
add("lraspp_mbv3_eval_op15_dynbatch", lambda: SegOut(lraspp()), IMG(64, 2), 15,
    dynamic=DYN_B)
add("lraspp_mbv3_train_op13", lambda: SegOut(lraspp()), IMG(64, 2), 13,
    train=True)
# nn modules
SEQ = {"x": {0: "batch", 1: "seq"}}
add("transformer_encoder_eval_op13_dynseq", Encoder, [("x", (2, 16, 32))], 13,
    dynamic=SEQ)
add("transformer_encoder_train_op17_dynseq", Encoder, [("x", (2, 16, 32))],
    17, train=True, dynamic=SEQ)
add("transformer_encoder_seqfirst_eval_op15", lambda: Encoder(False),
    [("x", (12, 2, 32))], 15)
add("token_encoder_eval_op15_dynseq", TokenEncoder,
    [("ids", (2, 16), torch.int64)], 15, dynamic={"ids": {0: "batch", 1: "seq"}})
add("token_encoder_train_op13", TokenEncoder, [("ids", (2, 16), torch.int64)],
    13, train=True)
add("mha_eval_op11_dynseq", Mha, [("q", (10, 2, 32)), ("kv", (14, 2, 32))], 11,
    dynamic={"q": {0: "seq", 1: "batch"}, "kv": {0: "kv_seq", 1: "batch"}})
add("mha_train_op15", Mha, [("q", (10, 2, 32)), ("kv", (10, 2, 32))], 15,
    train=True)
RNN_DYN = {"x": {0: "seq", 1: "batch"}}
add("lstm_bi2_eval_op13_dynseq",
    lambda: Recurrent(nn.LSTM, num_layers=2, bidirectional=True),
    [("x", (12, 2, 16))], 13, dynamic=RNN_DYN)
add("lstm_train_op11", lambda: Recurrent(nn.LSTM, batch_first=True),
    [("x", (2, 12, 16))], 11, train=True)
add("gru_eval_op17_dynseq", lambda: Recurrent(nn.GRU, num_layers=2),
    [("x", (12, 2, 16))], 17, dynamic=RNN_DYN)
add("gru_bi_train_op15", lambda: Recurrent(nn.GRU, bidirectional=True),
    [("x", (12, 2, 16))], 15, train=True)
add("convtranspose2d_eval_op13_dynhw", ConvTransposeDecoder, IMG(32), 13,
    dynamic=DYN_HW)
add("convtranspose2d_train_op11", ConvTransposeDecoder, IMG(32, 2), 11,
    train=True)
add("conv3d_eval_op13_dynbatch", Conv3dNet, [("input", (2, 3, 8, 16, 16))], 13,
    dynamic=DYN_B)
add("conv1d_train_op17_dynseq", Conv1dNet, [("x", (2, 16, 20))], 17,
    train=True, dynamic={"x": {0: "batch", 2: "seq"}})
add("einsum_attention_eval_op13_dynseq", EinsumAttention, [("x", (2, 16, 32))],
    13, dynamic=SEQ)
add("einsum_attention_train_op17", EinsumAttention, [("x", (2, 16, 32))], 17,
    train=True)
add("interpolate_bilinear_eval_op11_dynhw",
    lambda: TinyConvNet(Upsample2x("bilinear")), IMG(32), 11, dynamic=DYN_HW)
add("interpolate_nearest_train_op13", lambda: TinyConvNet(Upsample2x("nearest")),
    IMG(32), 13, train=True)
add("interpolate_tosize_eval_op15_dynhw", lambda: TinyConvNet(ResizeBack()),
    IMG(32), 15, dynamic=DYN_HW)
add("pad_reflect_eval_op13_dynhw", lambda: TinyConvNet(PadConv("reflect")),
    IMG(32), 13, dynamic=DYN_HW)
add("pad_constant_train_op17", lambda: TinyConvNet(PadConv("constant")),
    IMG(32, 2), 17, train=True)
add("pad_replicate_eval_op11", lambda: TinyConvNet(PadConv("replicate")),
    IMG(32), 11)


# ---------------------------------------------------------------- export
def strip_weights(proto):
    """Clears the data of float initializers over KEEP_FLOAT_ELEMS elements."""
    for init in proto.graph.initializer:
        if init.data_type not in FLOAT_TYPES:
            continue
        if _numel(init.dims) <= KEEP_FLOAT_ELEMS:
            continue
        for field in ("raw_data", "float_data", "double_data", "int32_data"):
            init.ClearField(field)


def file_params(proto, data_inputs):
    """Parameters the file holds, as the module docstring defines them."""
    sizes = {}
    for init in proto.graph.initializer:
        if init.data_type in FLOAT_TYPES:
            sizes[init.name] = _numel(init.dims)
    for vi in proto.graph.input:
        if vi.name in data_inputs or vi.name in sizes:
            continue
        t = vi.type.tensor_type
        if t.elem_type in FLOAT_TYPES:
            sizes[vi.name] = _numel(d.dim_value for d in t.shape.dim)
    read, stats = set(), set()
    for node in proto.graph.node:
        for i, name in enumerate(node.input):
            if node.op_type == "BatchNormalization" and i in (3, 4):
                stats.add(name)
            else:
                read.add(name)
    return sum(n for name, n in sizes.items() if name in read and name not in stats)


def flags_for(spec):
    """frugal flags that set every symbolic dim to the export's dims."""
    dims = {}
    for entry in spec["inputs"]:
        name, shape = entry[0], entry[1]
        for axis, sym in spec["dynamic"].get(name, {}).items():
            dims[sym] = shape[axis]
    flags = []
    if "batch" in dims:
        flags += ["--batch", str(dims.pop("batch"))]
    for sym in sorted(dims):
        flags += ["--dim", "%s=%d" % (sym, dims[sym])]
    return flags


def make_inputs(spec):
    inputs = []
    for entry in spec["inputs"]:
        dtype = entry[2] if len(entry) > 2 else torch.float32
        if dtype == torch.int64:
            inputs.append(torch.randint(0, 100, entry[1]))
        else:
            inputs.append(torch.randn(entry[1]))
    return inputs


def recount(spec):
    torch.manual_seed(0)
    model = spec["model"]()
    model.train(spec["train"])
    return count_flops(model, make_inputs(spec))


def export(name, spec, out_dir):
    torch.manual_seed(0)
    model = spec["model"]()
    model.train(spec["train"])
    inputs = make_inputs(spec)
    torch_params = count_parameters(model)
    flops = count_flops(model, inputs)
    model.train(spec["train"])
    path = os.path.join(out_dir, name + ".onnx")
    names = [e[0] for e in spec["inputs"]]
    dynamic = dict(spec["dynamic"])
    if dynamic:
        dynamic["output"] = {0: dynamic[names[0]][0]} if 0 in dynamic[names[0]] else {}
    training = (torch.onnx.TrainingMode.TRAINING if spec["train"]
                else torch.onnx.TrainingMode.EVAL)
    torch.onnx.export(
        model, tuple(inputs), path, input_names=names, output_names=["output"],
        dynamic_axes=dynamic or None, opset_version=spec["opset"],
        training=training, do_constant_folding=not spec["train"],
        export_params=spec.get("export_params", True),
        keep_initializers_as_inputs=spec.get("keep_inits", False))
    proto = onnx.load(path)
    strip_weights(proto)
    proto.doc_string = "frugal ONNX corpus: %s (torch %s, torchvision %s)" % (
        name, torch.__version__, torchvision.__version__)
    onnx.save(proto, path)
    params = file_params(proto, set(names))
    if spec["train"] and params != torch_params:
        raise RuntimeError("%s: file holds %d parameters, module %d"
                           % (name, params, torch_params))
    row = {
        "params": params,
        "torch_params": torch_params,
        "flops_compute": flops,
        "inputs": {e[0]: list(e[1]) for e in spec["inputs"]},
        "flags": flags_for(spec),
        "opset": spec["opset"],
        "train": spec["train"],
    }
    if not spec.get("export_params", True):
        row["export_params"] = False
    if spec.get("keep_inits"):
        row["keep_initializers_as_inputs"] = True
    print("%-42s %10d params %14d flops %8d bytes" % (
        name, params, flops, os.path.getsize(path)), flush=True)
    return row


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.normpath(os.path.join(here, "..", "testdata", "onnx", "corpus"))
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--only", nargs="*", choices=sorted(CORPUS), default=None)
    parser.add_argument("--recount", action="store_true",
                        help="only recompute flops_compute of existing entries")
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    ref_path = os.path.join(args.out, "reference.json")
    reference = {}
    if os.path.exists(ref_path):
        with open(ref_path) as f:
            reference = json.load(f)
    torch.set_num_threads(1)
    failed = []
    for name in args.only or CORPUS:
        try:
            if args.recount:
                if name in reference:
                    reference[name]["flops_compute"] = recount(CORPUS[name])
                    print("%-42s %14d flops" % (name, reference[name]["flops_compute"]),
                          flush=True)
                continue
            reference[name] = export(name, CORPUS[name], args.out)
        except Exception as e:  # report every failing export, then exit 1
            failed.append(name)
            print("%s: export failed: %s" % (name, str(e).splitlines()[0]),
                  file=sys.stderr, flush=True)
    reference = {k: reference[k] for k in sorted(reference) if k in CORPUS}
    with open(ref_path, "w") as f:
        json.dump(reference, f, indent=1, sort_keys=True)
        f.write("\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

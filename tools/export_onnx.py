#!/usr/bin/python3
"""Exports the bundled torchvision models to models/<name>.onnx, weights stripped.

Run with Debian's interpreter, which has python3-torch, python3-torchvision and
python3-onnx:

    /usr/bin/python3 tools/export_onnx.py [--out models] [--only resnet50 ...]

Each model is exported in training mode so that BatchNormalization stays a node
of its own (inference export folds it into the preceding Conv), without
constant folding, with a dynamic batch dim named "batch". The floating-point
initializers (weights, biases, BatchNorm statistics) then lose their data but
keep their dims and type: frugal needs shapes, not values, and the files shrink
from hundreds of MB to tens of KB. Integer initializers and Constant nodes are
kept because shape inference reads them (Reshape targets and the like).

The stripped files are not runnable by onnxruntime; they are graph
descriptions. Not run in CI: the outputs are committed under models/.
"""

import argparse
import os
import sys
import warnings

import onnx
import torch
import torchvision

OPSET = 15

# Training-mode export drops the in-place num_batches_tracked update (a buffer
# that no op reads) and says so once per BatchNorm; expected, so silenced.
warnings.filterwarnings("ignore", message=".*Removing mutation from node aten::add_.*")

# name -> (constructor, input side). Random init: only shapes matter, and
# init_weights=False skips the slow truncated-normal init where offered.
MODELS = {
    "resnet50": (lambda: torchvision.models.resnet50(weights=None), 224),
    "vgg16": (lambda: torchvision.models.vgg16(weights=None, init_weights=False), 224),
    # The auxiliary classifier only runs while training and is discarded for
    # inference; the usual parameter/FLOP figures for Inception-v3 exclude it.
    # transform_input is already False without pretrained weights.
    "inception_v3": (
        lambda: torchvision.models.inception_v3(
            weights=None, aux_logits=False, init_weights=False, transform_input=False
        ),
        299,
    ),
    "mobilenet_v2": (lambda: torchvision.models.mobilenet_v2(weights=None), 224),
}

FLOAT_TYPES = {
    onnx.TensorProto.FLOAT,
    onnx.TensorProto.FLOAT16,
    onnx.TensorProto.BFLOAT16,
    onnx.TensorProto.DOUBLE,
}


def count_parameters(model):
    """Trainable parameters (BatchNorm running stats are buffers, not counted)."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def strip_weights(model_proto):
    """Clears the data of floating-point initializers, keeping dims and type."""
    stripped = 0
    for init in model_proto.graph.initializer:
        if init.data_type not in FLOAT_TYPES:
            continue
        init.ClearField("raw_data")
        init.ClearField("float_data")
        init.ClearField("double_data")
        init.ClearField("int32_data")  # float16 / bfloat16 live here
        stripped += 1
    return stripped


def export_stripped(model, inputs, path, input_names, dynamic_axes, opset, doc,
                    output_names=None):
    """Training-mode export without constant folding, float weights stripped,
    `doc` as the model's doc string. Returns how many initializers lost data."""
    torch.onnx.export(
        model,
        inputs,
        path,
        input_names=input_names,
        output_names=output_names,
        dynamic_axes=dynamic_axes,
        opset_version=opset,
        training=torch.onnx.TrainingMode.TRAINING,
        do_constant_folding=False,
    )
    proto = onnx.load(path)
    stripped = strip_weights(proto)
    proto.doc_string = doc
    onnx.save(proto, path)
    return stripped


def export(name, out_dir):
    ctor, side = MODELS[name]
    torch.manual_seed(0)
    model = ctor()
    params = count_parameters(model)
    path = os.path.join(out_dir, name + ".onnx")
    stripped = export_stripped(
        model, torch.zeros(1, 3, side, side), path, ["input"],
        {"input": {0: "batch"}, "logits": {0: "batch"}}, OPSET,
        "torchvision %s %s, random init, training-mode export (opset %d), "
        "floating-point initializer data stripped by tools/export_onnx.py; "
        "%d trainable parameters" % (torchvision.__version__, name, OPSET, params),
        output_names=["logits"])
    size = os.path.getsize(path)
    print("%-13s %12d params  %4d initializers stripped  %8d bytes  %s"
          % (name, params, stripped, size, path))


def run_cli(doc, default_out, models, export_one):
    """`--out DIR` (default `default_out`) and `--only NAME ...` over `models`."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0])
    parser.add_argument("--out", default=default_out)
    parser.add_argument("--only", nargs="*", choices=sorted(models), default=None)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    for name in args.only or models:
        export_one(name, args.out)
    return 0


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    return run_cli(__doc__, os.path.normpath(os.path.join(here, "..", "models")), MODELS, export)


if __name__ == "__main__":
    sys.exit(main())

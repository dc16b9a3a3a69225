"""Shared by the benches that check ResNet-50 against NVIDIA DeepLearningExamples'
published tables (PyTorch/Classification/ConvNets/resnet50v1.5/README.md):
the command line (BUILD_DIR, PERF_MODEL) and one `frugal predict` of
models/resnet50.onnx."""
import json
import os
import subprocess
import sys

README = ("https://github.com/NVIDIA/DeepLearningExamples/blob/master/PyTorch/Classification/"
          "ConvNets/resnet50v1.5/README.md")


def predictor(argv=None):
    """The predict function for `bench/X.py [BUILD_DIR] [PERF_MODEL]`."""
    argv = sys.argv if argv is None else argv
    build = argv[1] if len(argv) > 1 else "build"
    perf = argv[2] if len(argv) > 2 else ""
    frugal = os.path.join(build, "tools", "frugal", "frugal")

    def predict(gpu, batch, *flags):
        cmd = [frugal, "predict", "models/resnet50.onnx", "--gpu", gpu, "--batch", str(batch),
               *flags, "--json"]
        if perf:
            cmd += ["--perf-model", perf]
        return json.loads(subprocess.run(cmd, capture_output=True, text=True, check=True).stdout)

    return predict


def write_result(name, out):
    """Writes bench/results/NAME.json (sorted keys, one-space indent)."""
    os.makedirs("bench/results", exist_ok=True)
    with open(f"bench/results/{name}.json", "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
        f.write("\n")

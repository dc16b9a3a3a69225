"""The end-to-end labels in ../shared/data/perf/e2e-labels and the
`frugal predict` command that prices what each one measured.

A label <model>-<train|inf>-<seq>-<batch>.json holds the mean of the 5
fastest of 25 timed iterations of a Hugging Face model in eager PyTorch,
fp32, with all-ones token ids:
- inference: the forward pass under no_grad. BERT is built as
  AutoModelForSequenceClassification (pooler + 2-class classifier, no MLM
  head); decoders and Switch as their LM classes (the config's own).
- training: forward, then loss.backward(), timed apart and summed. The loss
  itself and the optimizer step are not timed. BERT is built as
  AutoModelForPreTraining (the MLM head).
So training labels are priced with `--optimizer none` and BERT inference with
`--head seq-cls`. A `-fusion` label ran the same model under torch.compile:
it is priced with `--fused`. Multi-GPU labels (one machine) carry the
global batch in the name: `-dpN` is priced with `--gpus N` and batch / N per
GPU, `-tpN` with `--tp N` (every rank sees the whole batch), `-ppN_M` with
`--pp N --microbatches M`. The shared folder holds none today: the bench
reports their count (0) and prices them when they appear.
"""
import os
import re

LABELS_DIR = os.path.join("..", "shared", "data", "perf", "e2e-labels")
NAME_RE = re.compile(
    r"^(?P<model>.+)-(?P<mode>train|inf)-(?P<seq>\d+)-(?P<batch>\d+)"
    r"(?:(?P<fusion>-fusion)|-dp(?P<dp>\d+)|-tp(?P<tp>\d+)|-pp(?P<pp>\d+)_(?P<mb>\d+))?"
    r"\.json$")


def labels(labels_dir=LABELS_DIR):
    """Yields (gpu, file name, match, path) for every label frugal prices, sorted."""
    for gpu in sorted(os.listdir(labels_dir)):
        gdir = os.path.join(labels_dir, gpu)
        if not os.path.isdir(gdir):
            continue
        for f in sorted(os.listdir(gdir)):
            m = NAME_RE.match(f)
            if m:
                yield gpu, f, m, os.path.join(gdir, f)


def predict_command(frugal, gpu, m, perf_model):
    """The `frugal predict` command line for label match `m` on `gpu`."""
    train = m["mode"] == "train"
    gpus = int(m["dp"] or 1)
    batch = max(1, int(m["batch"]) // gpus)
    plan = []
    if m["tp"]:
        plan = ["--tp", m["tp"]]
        gpus = int(m["tp"])
    elif m["pp"]:
        plan = ["--pp", m["pp"], "--microbatches", m["mb"]]
        gpus = int(m["pp"])
    cmd = [frugal, "predict", f"models/hf/{m['model']}.json", "--gpu", gpu,
           "--gpus", str(gpus), "--batch", str(batch), "--seq", m["seq"], *plan,
           "--train" if train else "--infer", "--perf-model", perf_model, "--json",
           # The labels were measured in fp32; HF configs' torch_dtype would
           # otherwise price them in half precision.
           "--precision", "fp32"]
    if m["fusion"]:
        cmd += ["--fused"]
    if train:
        cmd += ["--optimizer", "none"]
    elif m["model"].startswith("bert"):
        cmd += ["--head", "seq-cls"]
    return cmd

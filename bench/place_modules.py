#!/usr/bin/python3
"""Pesto on bundled models at the granularities a framework can run.

    bench/place_modules.py [BUILD_DIR] [TIME_LIMIT_S]

For ResNet-50 and MobileNet-V2 (ONNX exports of torchvision) and GPT-2
medium (HF config), training steps split into 4 micro-batches on 4 A100s
whose memory is cut to 1.2 x the step's memory / 4, so that the model must be
split: every method (the layer pipeline with its 1F1B order among them) at
--granularity op (the unconstrained problem: any op anywhere), module (the
default: a module with its backward and update, parameter-free ops with their
input) and layer (whole blocks). Per case: each method's makespan, the lower
bound, how many backward / optimizer ops sit on another GPU than their
forward op, and tools/check_device_map.py's verdict on the device map.
Writes bench/results/place_modules.json and prints the README table.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
LIMIT = sys.argv[2] if len(sys.argv) > 2 else "20"
FRUGAL = os.path.join(ROOT, BUILD, "tools/frugal/frugal")
GPU = "A100-SXM4-80GB"
K = 4
MODELS = [
    ("resnet50", "models/resnet50.onnx", ["--batch", "32"], ["--torchvision", "resnet50"]),
    ("mobilenet_v2", "models/mobilenet_v2.onnx", ["--batch", "32"],
     ["--torchvision", "mobilenet_v2"]),
    ("gpt2_med", "models/hf/gpt2_med.json", ["--batch", "4", "--seq", "1024"],
     ["--hf-config", "models/hf/gpt2_med.json"]),
]
METHODS = ["single", "expert", "heft", "m-topo", "m-etf", "m-sct", "metis", "pipeline", "pesto"]
MICROBATCHES = "4"


def run(cmd):
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return r.returncode, r.stdout, r.stderr


def split_backward(graph_json, placement, m):
    """Backward / optimizer ops on another GPU than their forward op. With m
    micro-batches the placement's nodes are the step's forward and backward
    ops once per micro-batch (micro-batch-major), then the updates."""
    ops = json.load(open(graph_json))["ops"]
    shared = [i for i, op in enumerate(ops) if op["phase"] == "optimizer"]
    own = [i for i, op in enumerate(ops) if op["phase"] != "optimizer"]
    node_of = {}  # (graph op, micro-batch) -> node index
    for k in range(len(own) * m):
        node_of[(own[k % len(own)], k // len(own))] = k
    for j, i in enumerate(shared):
        for r in range(m):
            node_of[(i, r)] = len(own) * m + j
    dev = {n["index"]: n["device"] for n in placement["nodes"]}
    return sum(1 for i, op in enumerate(ops) for r in range(m)
               if op["phase"] != "forward" and op["forward_op"] >= 0
               and dev[node_of[(i, r)]] != dev[node_of[(op["forward_op"], r)]])


def main():
    tmp = tempfile.mkdtemp()
    cases = []
    for name, model, sizes, check_args in MODELS:
        graph = os.path.join(tmp, name + "_step.json")
        mb_sizes = list(sizes)
        mb_sizes[mb_sizes.index("--batch") + 1] = str(
            int(mb_sizes[mb_sizes.index("--batch") + 1]) // int(MICROBATCHES))
        rc, _, err = run([FRUGAL, "graph", "convert", model, graph, "--train", *mb_sizes])
        if rc != 0:
            sys.exit(f"place_modules: {err.strip()}")
        rc, out, err = run([FRUGAL, "place", model, "--train", *sizes, "--gpus", "1", "--gpu",
                            GPU, "--method", "single", "--granularity", "op",
                            "--microbatches", MICROBATCHES, "--json"])
        if rc != 0:
            sys.exit(f"place_modules: {err.strip()}")
        mem_gb = 1.2 * json.loads(out)["memory_bytes"] / K / 2**30
        for gran in ["op", "module", "layer"]:
            print(f"{name} {gran} ...", file=sys.stderr, flush=True)
            out_path = os.path.join(tmp, f"{name}_{gran}.json")
            rc, out, err = run([FRUGAL, "place", model, "--train", *sizes, "--gpus", str(K),
                                "--gpu", GPU, "--mem-gb", f"{mem_gb:.6f}", "--granularity", gran,
                                "--microbatches", MICROBATCHES,
                                "--time-limit", LIMIT, "--json", "--out", out_path])
            case = {"model": name, "granularity": gran, "gpus": K, "mem_gb": mem_gb}
            if rc != 0:
                case["error"] = err.strip()
                cases.append(case)
                continue
            d = json.loads(out)
            placement = json.load(open(out_path))
            case.update({
                "ops": d["ops"], "colocation_groups": d["colocation_groups"],
                "lower_bound_ms": d["lower_bound_ms"], "best": d["best"],
                "makespan_ms": {m["name"]: m["makespan_ms"] for m in d["methods"]},
                "pesto_seconds": next(m["seconds"] for m in d["methods"] if m["name"] == "pesto"),
                "split_backward_ops": split_backward(graph, placement, int(MICROBATCHES)),
            })
            if "device_map" in placement:
                rc, out, err = run(["/usr/bin/python3", "tools/check_device_map.py", out_path,
                                    *check_args])
                case["device_map_check"] = (out.strip().splitlines() or [err.strip()])[-1]
                case["device_map_ok"] = rc == 0
            else:
                case["device_map_check"] = placement.get("device_map_note", "no device map")
                case["device_map_ok"] = None
            cases.append(case)

    def ms(v):
        return "—" if v is None else f"{v:.1f}"

    lines = ["| model | granularity | groups | LB ms | " + " | ".join(METHODS) +
             " | pesto / best baseline | vs op-level pesto | backward ops off their forward's GPU"
             " | device map |",
             "|---|---|---|---|" + "---|" * len(METHODS) + "---|---|---|---|"]
    summary = {"pesto_never_worse_than_baselines": True, "device_maps_pass": True}
    op_pesto = {}
    for c in cases:
        if "error" in c:
            lines.append(f"| {c['model']} | {c['granularity']} | {c['error']} |")
            continue
        mk = c["makespan_ms"]
        base = [mk[m] for m in METHODS[:-1] if mk.get(m) is not None]
        best_base = min(base) if base else None
        pesto = mk.get("pesto")
        if c["granularity"] == "op":
            op_pesto[c["model"]] = pesto
        ratio = pesto / best_base if pesto and best_base else None
        c["pesto_over_best_baseline"] = ratio
        if ratio is not None and ratio > 1 + 1e-9:
            summary["pesto_never_worse_than_baselines"] = False
        gap = pesto / op_pesto[c["model"]] if pesto and op_pesto.get(c["model"]) else None
        c["pesto_over_op_level_pesto"] = gap
        if c["device_map_ok"] is False:
            summary["device_maps_pass"] = False
        verdict = {True: "passes", False: "FAILS", None: "none"}[c["device_map_ok"]]
        lines.append(
            f"| {c['model']} | {c['granularity']} | {c['colocation_groups']} | "
            f"{c['lower_bound_ms']:.1f} | " + " | ".join(ms(mk.get(m)) for m in METHODS) +
            f" | {ratio:.3f} | {gap:.3f} | {c['split_backward_ops']} | {verdict} |"
            if ratio is not None and gap is not None else
            f"| {c['model']} | {c['granularity']} | {c['colocation_groups']} | "
            f"{c['lower_bound_ms']:.1f} | " + " | ".join(ms(mk.get(m)) for m in METHODS) +
            f" | — | — | {c['split_backward_ops']} | {verdict} |")
    table = "\n".join(lines)
    result = {"command": f"bench/place_modules.py {BUILD} {LIMIT}", "gpu": GPU, "gpus": K,
              "microbatches": int(MICROBATCHES),
              "time_limit_s": float(LIMIT), "summary": summary, "cases": cases,
              "table_md": table}
    os.makedirs(os.path.join(ROOT, "bench/results"), exist_ok=True)
    with open(os.path.join(ROOT, "bench/results/place_modules.json"), "w") as f:
        json.dump(result, f, indent=1)
    print(table)
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

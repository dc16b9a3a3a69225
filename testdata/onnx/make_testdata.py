#!/usr/bin/python3
"""Writes the tiny hand-made ONNX models used by onnx_test.cc.

    /usr/bin/python3 testdata/onnx/make_testdata.py

mixed.onnx      Gather from a weight table (embedding), an op type ONNX has no
                schema for ("FancyOp", kept as unknown), a custom-domain op,
                MatMul with a weight, a Constant-fed Reshape, Clip with an
                omitted optional input, Softmax. Dynamic batch "batch".
dynamic_seq.onnx  input [batch, seq, 8]: "seq" cannot be resolved.
static_batch.onnx input [2, 4] with a static batch.
shape_chain.onnx  input [batch, seq, 8]; Reshape / Expand / Pad / Slice / Tile
                targets computed from Shape -> Gather -> Unsqueeze -> Concat,
                arithmetic, Range, ConstantOfShape, Where / Equal chains, as
                torch.onnx.export writes them.
weights_as_inputs.onnx  Conv + Gemm whose weights are graph inputs (what
                export_params=False writes), data input [N, 3, 8, 8].
bn_untyped_outputs.onnx  opset 13 training BatchNormalization whose running
                mean / var outputs nobody reads.
control_flow.onnx  an If on a constant condition and a Loop with a constant
                trip count of 3 around a MatMul.
dynamic_loop.onnx  a Loop whose trip count is a graph input.
sequence.onnx   SequenceConstruct -> ConcatFromSequence.
conv_rank_mismatch.onnx  a Conv without kernel_shape whose 4-d weight meets
                a 3-d input (ONNX's inference would read past the input's dims).
convtranspose_flat_weight.onnx  a ConvTranspose with a 1-d weight.
undefined_input.onnx  a Shape of a tensor nothing produces, feeding an If
                (ONNX's inference dereferences the missing type).
zero_stride.onnx  a MaxPool with a zero stride (inference divides by it).
scan_no_attributes.onnx  a Scan without its required body and num_scan_inputs
                (inference reads num_scan_inputs without checking it is there).
float_axis.onnx  a Flatten whose axis is a FLOAT (its schema's type is INT).
tied_linear.onnx  ids [batch, 5] -> Gather(emb [100, 16]) -> MatMul with
                Transpose(lin.weight [16, 16]) -> MatMul with Transpose(emb):
                nn.Linear on a 3-D input and a tied output layer as a
                training-mode export without constant folding writes them.
dead_graph.onnx  its output is its input: the one node (a Relu) is dead.
unproduced_output.onnx  a graph output nothing produces.
layernorm_seq.onnx  input [batch, seq, 8], LayerNormalization over the last
                two dims with a [4, 8] scale: only --dim seq=4 fits it.
"""

import os

import onnx
from onnx import TensorProto, helper

HERE = os.path.dirname(os.path.abspath(__file__))
OPSETS = [helper.make_opsetid("", 15), helper.make_opsetid("com.example", 1)]


def stripped(name, dims, data_type=TensorProto.FLOAT):
    """An initializer with dims and type but no data, as in models/."""
    t = TensorProto()
    t.name = name
    t.data_type = data_type
    t.dims.extend(dims)
    return t


def save(graph, name, opsets=None):
    model = helper.make_model(graph, opset_imports=opsets or OPSETS[:1],
                              producer_name="frugal testdata")
    model.ir_version = 8
    onnx.save(model, os.path.join(HERE, name))


def mixed():
    nodes = [
        helper.make_node("Gather", ["emb.weight", "ids"], ["tok"], name="embed"),
        helper.make_node("FancyOp", ["tok"], ["fancy"], name="fancy", alpha=0.5),
        helper.make_node("Scale", ["fancy"], ["scaled"], name="scale",
                         domain="com.example"),
        helper.make_node("MatMul", ["scaled", "proj.weight"], ["proj"], name="proj"),
        helper.make_node("Constant", [], ["shape"], name="shape_const",
                         value=helper.make_tensor("v", TensorProto.INT64, [2], [-1, 8])),
        helper.make_node("Reshape", ["proj", "shape"], ["flat"], name="flatten"),
        helper.make_node("Constant", [], ["six"], name="six_const",
                         value=helper.make_tensor("v", TensorProto.FLOAT, [], [6.0])),
        helper.make_node("Clip", ["flat", "", "six"], ["clipped"], name="relu6"),
        helper.make_node("Softmax", ["clipped"], ["probs"], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "mixed",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 5])],
        [helper.make_tensor_value_info("probs", TensorProto.FLOAT, None)],
        initializer=[stripped("emb.weight", [100, 16]), stripped("proj.weight", [16, 8])])
    save(graph, "mixed.onnx", OPSETS)


def dynamic_seq():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "dynamic_seq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 8])])
    save(graph, "dynamic_seq.onnx")


def static_batch():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")], "static_batch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])])
    save(graph, "static_batch.onnx")


def i64(name, values):
    return helper.make_tensor(name, TensorProto.INT64, [len(values)], values)


def const(out, values):
    return helper.make_node("Constant", [], [out], value=i64(out, values))


def shape_chain():
    n = helper.make_node
    nodes = [
        n("Shape", ["x"], ["shape"]),
        const("zero", [0]), const("one", [1]), const("two", [2]),
        n("Gather", ["shape", "zero"], ["b0"], axis=0),
        n("Gather", ["shape", "one"], ["s0"], axis=0),
        n("Mul", ["s0", "two"], ["s2"]),
        const("four", [4]),
        n("Concat", ["b0", "s2", "four"], ["target"], axis=0),
        n("Reshape", ["x", "target"], ["r"], name="reshape"),       # [b, 2s, 4]
        n("Shape", ["r"], ["rshape"]),
        n("Slice", ["rshape", "one", "two"], ["len2s"]),            # [2s]
        n("Squeeze", ["len2s", "zero"], ["len2s_scalar"]),
        helper.make_node("Constant", [], ["start"], value=helper.make_tensor(
            "start", TensorProto.INT64, [], [0])),
        helper.make_node("Constant", [], ["step"], value=helper.make_tensor(
            "step", TensorProto.INT64, [], [1])),
        n("Range", ["start", "len2s_scalar", "step"], ["positions"]),  # [2s]
        n("Shape", ["positions"], ["pshape"]),
        n("ConstantOfShape", ["pshape"], ["ones"],
          value=helper.make_tensor("v", TensorProto.INT64, [1], [1])),
        n("Equal", ["ones", "ones"], ["all_true"]),
        n("Where", ["all_true", "positions", "ones"], ["picked"]),
        n("Shape", ["picked"], ["picked_shape"]),
        n("Concat", ["b0", "picked_shape", "four"], ["expand_to"], axis=0),
        n("Unsqueeze", ["r", "one"], ["r1"]),                        # [b, 1, 2s, 4]
        n("Concat", ["b0", "one", "picked_shape", "four"], ["expand4"], axis=0),
        n("Expand", ["r1", "expand4"], ["e"], name="expand"),       # [b, 1, 2s, 4]
        n("Squeeze", ["e", "one"], ["e3"]),
        n("Sub", ["two", "one"], ["pad1"]),
        const("z3", [0, 0, 0]),
        n("Concat", ["z3", "z3"], ["pads0"], axis=0),
        n("Concat", ["zero", "zero", "pad1", "zero", "zero", "pad1"], ["pads"], axis=0),
        n("Pad", ["e3", "pads"], ["padded"], name="pad"),           # [b, 2s, 6]
        n("Div", ["s2", "two"], ["s_again"]),
        n("Slice", ["padded", "zero", "s_again", "one"], ["sliced"], name="slice"),  # [b, s, 6]
        n("Concat", ["one", "two", "one"], ["reps"], axis=0),
        n("Tile", ["sliced", "reps"], ["tiled"], name="tile"),      # [b, 2s, 6]
        n("MatMul", ["tiled", "w"], ["y"], name="proj"),            # [b, 2s, 5]
    ]
    graph = helper.make_graph(
        nodes, "shape_chain",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("expand_to", TensorProto.INT64, None)],
        initializer=[stripped("w", [6, 5])])
    save(graph, "shape_chain.onnx")


def weights_as_inputs():
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "conv.weight", "conv.bias"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("GlobalAveragePool", ["c"], ["p"]),
         helper.make_node("Flatten", ["p"], ["f"]),
         helper.make_node("Gemm", ["f", "fc.weight", "fc.bias"], ["y"], transB=1)],
        "weights_as_inputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8]),
         helper.make_tensor_value_info("conv.weight", TensorProto.FLOAT, [4, 3, 3, 3]),
         helper.make_tensor_value_info("conv.bias", TensorProto.FLOAT, [4]),
         helper.make_tensor_value_info("fc.weight", TensorProto.FLOAT, [10, 4]),
         helper.make_tensor_value_info("fc.bias", TensorProto.FLOAT, [10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    save(graph, "weights_as_inputs.onnx")


def bn_untyped_outputs():
    graph = helper.make_graph(
        [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"],
                          ["y", "running_mean", "running_var", "saved_mean", "saved_var"],
                          name="bn"),
         helper.make_node("Relu", ["y"], ["z"])],
        "bn_untyped_outputs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 5, 5])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        initializer=[stripped(n, [4]) for n in "sbmv"])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="frugal testdata")
    model.ir_version = 7
    onnx.save(model, os.path.join(HERE, "bn_untyped_outputs.onnx"))


def control_flow():
    def branch(name, value):
        return helper.make_graph(
            [helper.make_node("MatMul", ["x", "w"], [name + "_out"])], name, [],
            [helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, None)]) \
            if value else helper.make_graph(
            [helper.make_node("Relu", ["x"], [name + "_out"])], name, [],
            [helper.make_tensor_value_info(name + "_out", TensorProto.FLOAT, None)])
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("MatMul", ["h_in", "u"], ["h_mm"]),
         helper.make_node("Tanh", ["h_mm"], ["h_out"]),
         helper.make_node("Identity", ["h_out"], ["scan_out"])],
        "body",
        [helper.make_tensor_value_info("i", TensorProto.INT64, []),
         helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_in", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("h_out", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, None)])
    nodes = [
        helper.make_node("Shape", ["x"], ["xs"]),
        helper.make_node("Size", ["xs"], ["rank"]),
        helper.make_node("Constant", [], ["two"], value=helper.make_tensor(
            "two", TensorProto.INT64, [], [2])),
        helper.make_node("Equal", ["rank", "two"], ["is_2d"]),
        helper.make_node("If", ["is_2d"], ["picked"], name="choose",
                         then_branch=branch("then", True), else_branch=branch("else", False)),
        helper.make_node("Constant", [], ["trips"], value=helper.make_tensor(
            "trips", TensorProto.INT64, [], [3])),
        helper.make_node("Constant", [], ["true"], value=helper.make_tensor(
            "true", TensorProto.BOOL, [], [1])),
        helper.make_node("Loop", ["trips", "true", "picked"], ["h", "hs"], name="rnn", body=body),
    ]
    graph = helper.make_graph(
        nodes, "control_flow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("hs", TensorProto.FLOAT, None)],
        initializer=[stripped("w", [8, 8]), stripped("u", [8, 8])])
    save(graph, "control_flow.onnx")

    nodes[5] = helper.make_node("Identity", ["steps"], ["trips"])
    graph = helper.make_graph(
        nodes, "dynamic_loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8]),
         helper.make_tensor_value_info("steps", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("h", TensorProto.FLOAT, None)],
        initializer=[stripped("w", [8, 8]), stripped("u", [8, 8])])
    save(graph, "dynamic_loop.onnx")


def sequence():
    graph = helper.make_graph(
        [helper.make_node("SequenceConstruct", ["x", "x"], ["seq"], name="pack"),
         helper.make_node("ConcatFromSequence", ["seq"], ["y"], axis=0)],
        "sequence",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    save(graph, "sequence.onnx")


def bad_convs():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["r"]),
         helper.make_node("Conv", ["r", "w"], ["y"], name="conv")],
        "conv_rank_mismatch",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[stripped("w", [4, 3, 3, 3])])
    save(graph, "conv_rank_mismatch.onnx")
    graph = helper.make_graph(
        [helper.make_node("ConvTranspose", ["x", "w"], ["y"], name="up", kernel_shape=[3, 3])],
        "convtranspose_flat_weight",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        initializer=[stripped("w", [27])])
    save(graph, "convtranspose_flat_weight.onnx")
    graph = helper.make_graph(
        [helper.make_node("Shape", ["ghost"], ["s"], name="shape"),
         helper.make_node("Size", ["s"], ["rank"]),
         helper.make_node("Relu", ["x"], ["y"])],
        "undefined_input",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    save(graph, "undefined_input.onnx")
    graph = helper.make_graph(
        [helper.make_node("MaxPool", ["x"], ["y"], name="pool", kernel_shape=[2, 2],
                          strides=[1, 0])],
        "zero_stride",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    save(graph, "zero_stride.onnx")


def bad_attributes():
    graph = helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu"),
         helper.make_node("Scan", ["y"], ["z"], name="scan")],
        "scan_no_attributes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4, 5])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)])
    save(graph, "scan_no_attributes.onnx")
    graph = helper.make_graph(
        [helper.make_node("Flatten", ["x"], ["y"], name="flat", axis=1.5)],
        "float_axis",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    save(graph, "float_axis.onnx")


def tied_linear():
    nodes = [
        helper.make_node("Gather", ["emb.weight", "ids"], ["tok"], name="embed"),
        helper.make_node("Transpose", ["lin.weight"], ["lin_t"], name="lin_t", perm=[1, 0]),
        helper.make_node("MatMul", ["tok", "lin_t"], ["h"], name="lin"),
        helper.make_node("Transpose", ["emb.weight"], ["emb_t"], name="emb_t", perm=[1, 0]),
        helper.make_node("MatMul", ["h", "emb_t"], ["logits"], name="head"),
    ]
    graph = helper.make_graph(
        nodes, "tied_linear",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, ["batch", 5])],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, None)],
        initializer=[stripped("emb.weight", [100, 16]), stripped("lin.weight", [16, 16])])
    save(graph, "tied_linear.onnx")


def dead_graphs():
    relu = [helper.make_node("Relu", ["x"], ["y"], name="relu")]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])
    save(helper.make_graph(relu, "dead_graph", [x], [x]), "dead_graph.onnx")
    z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["batch", 4])
    save(helper.make_graph(relu, "unproduced_output", [x], [z]), "unproduced_output.onnx")


def layernorm_seq():
    graph = helper.make_graph(
        [helper.make_node("LayerNormalization", ["x", "ln.weight", "ln.bias"], ["y"], name="ln",
                          axis=1)],
        "layernorm_seq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", 8])],
        initializer=[stripped("ln.weight", [4, 8]), stripped("ln.bias", [4, 8])])
    save(graph, "layernorm_seq.onnx", [helper.make_opsetid("", 17)])


if __name__ == "__main__":
    mixed()
    dynamic_seq()
    static_batch()
    shape_chain()
    weights_as_inputs()
    bn_untyped_outputs()
    control_flow()
    sequence()
    bad_convs()
    bad_attributes()
    tied_linear()
    dead_graphs()
    layernorm_seq()

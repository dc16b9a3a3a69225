#!/usr/bin/python3
"""Writes the tiny hand-made ONNX models used by onnx_test.cc.

    /usr/bin/python3 testdata/onnx/make_testdata.py

mixed.onnx      Gather from a weight table (embedding), an op type ONNX has no
                schema for ("FancyOp", kept as unknown), a custom-domain op,
                MatMul with a weight, a Constant-fed Reshape, Clip with an
                omitted optional input, Softmax. Dynamic batch "batch".
dynamic_seq.onnx  input [batch, seq, 8]: "seq" cannot be resolved.
static_batch.onnx input [2, 4] with a static batch.
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


if __name__ == "__main__":
    mixed()
    dynamic_seq()
    static_batch()

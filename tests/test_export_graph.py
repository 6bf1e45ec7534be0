"""export/graph.py: the padding-mask multiply is dropped only where it changes no value, and then the graph's
outputs are the same bit for bit; int8 weights stored unsigned give the exact integer product on every CPU."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402

from export.graph import drop_exact_padding_masks, unsigned_matmul_weights  # noqa: E402
from native_host.pipeline.inference import MODEL_FILE, default_model_dir  # noqa: E402

VOCAB, DIM, TOKENS = 50, 8, 6


def bag_model(row0_zero: bool = True, add_before_mask: bool = False):
    """ids [1, blocks, TOKENS] -> the mean of their int8 embedding rows, as the exporter writes a bag."""
    rng = np.random.default_rng(7)
    zero_point = np.uint8(128)
    table = rng.integers(0, 256, (VOCAB, DIM), dtype=np.uint8)
    if row0_zero:
        table[0] = zero_point
    nodes = [
        helper.make_node("Gather", ["table_q", "ids"], ["rows_q"]),
        helper.make_node("DequantizeLinear", ["rows_q", "scale", "zero"], ["rows"]),
        helper.make_node("Constant", [], ["pad"], value=numpy_helper.from_array(np.array(0, np.int64))),
        helper.make_node("Constant", [], ["last"], value=numpy_helper.from_array(np.array([-1], np.int64))),
        helper.make_node("Equal", ["ids", "pad"], ["is_pad"]),
        helper.make_node("Not", ["is_pad"], ["kept"]),
        helper.make_node("Unsqueeze", ["kept", "last"], ["kept3"]),
        helper.make_node("Cast", ["kept3"], ["mask"], to=TensorProto.FLOAT),
    ]
    rows = "rows"
    if add_before_mask:
        nodes.append(helper.make_node("Add", ["rows", "position"], ["placed"]))
        rows = "placed"
    nodes += [
        helper.make_node("Mul", [rows, "mask"], ["masked"]),
        helper.make_node("ReduceSum", ["masked", "axis"], ["summed"], keepdims=0),
        helper.make_node("ReduceSum", ["mask", "axis"], ["count"], keepdims=0),
        helper.make_node("Clip", ["count", "one"], ["count1"]),
        helper.make_node("Div", ["summed", "count1"], ["mean"]),
    ]
    inits = [
        numpy_helper.from_array(table, "table_q"),
        numpy_helper.from_array(np.array(0.037, np.float32), "scale"),
        numpy_helper.from_array(np.array(zero_point), "zero"),
        numpy_helper.from_array(np.array([2], np.int64), "axis"),
        numpy_helper.from_array(np.array(1.0, np.float32), "one"),
        numpy_helper.from_array(rng.normal(size=(TOKENS, DIM)).astype(np.float32), "position"),
    ]
    graph = helper.make_graph(
        nodes,
        "bag",
        [helper.make_tensor_value_info("ids", TensorProto.INT64, [1, "n", TOKENS])],
        [helper.make_tensor_value_info("mean", TensorProto.FLOAT, [1, "n", DIM])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what onnxruntime reads: a newer onnx writes its own newer IR by default
    return model


def run(model, ids):
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"ids": ids})[0]


def some_ids(seed: int = 3) -> np.ndarray:
    """Blocks with every count of padding, a block of padding alone among them."""
    rng = np.random.default_rng(seed)
    ids = rng.integers(1, VOCAB, (1, 40, TOKENS), dtype=np.int64)
    for block in range(40):
        ids[0, block, TOKENS - block % (TOKENS + 1) :] = 0
    return ids


def test_a_mask_that_changes_nothing_is_dropped_and_outputs_stay_bit_for_bit():
    model = bag_model()
    ids = some_ids()
    before = run(model, ids)
    assert drop_exact_padding_masks(model) == 1
    assert [n.op_type for n in model.graph.node].count("Mul") == 0
    onnx.checker.check_model(model)
    after = run(model, ids)
    assert before.tobytes() == after.tobytes()
    assert np.all(before[0, 6] == 0)  # the all-padding block: +0, as before
    assert drop_exact_padding_masks(model) == 0  # once is all


@pytest.mark.parametrize(
    "kwargs",
    [{"row0_zero": False}, {"add_before_mask": True}],
    ids=["padding row not zero", "something added before the mask"],
)
def test_a_mask_that_matters_is_kept(kwargs):
    model = bag_model(**kwargs)
    ids = some_ids()
    before = run(model, ids)
    assert drop_exact_padding_masks(model) == 0
    assert before.tobytes() == run(model, ids).tobytes()


def test_the_shipped_model_has_had_the_pass():
    """export/onnx_export.py applies both to every model it writes; the shipped one has nothing left to rewrite."""
    model = onnx.load(str(default_model_dir() / MODEL_FILE))
    assert drop_exact_padding_masks(model) == 0
    assert unsigned_matmul_weights(model) == 0
    weights = {i.name: i.data_type for i in model.graph.initializer}
    matmuls = [n for n in model.graph.node if n.op_type == "MatMulInteger"]
    assert matmuls and all(weights[n.input[1]] == TensorProto.UINT8 for n in matmuls)


def matmul_model(k: int):
    """uint8 activations [2, k] times int8 weights [k, 3] with a zero point per column, as the quantizer writes."""
    rng = np.random.default_rng(11)
    weights = rng.integers(100, 128, (k, 3), dtype=np.int8)  # large products: where 16-bit pair sums saturate
    weights[:, 1] = -weights[:, 1]
    zero = np.array([0, -3, 5], dtype=np.int8)
    graph = helper.make_graph(
        [helper.make_node("MatMulInteger", ["a", "w", "a_zero", "w_zero"], ["y"])],
        "matmul",
        [helper.make_tensor_value_info("a", TensorProto.UINT8, [2, k])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [2, 3])],
        [
            numpy_helper.from_array(weights, "w"),
            numpy_helper.from_array(zero, "w_zero"),
            numpy_helper.from_array(np.uint8(0), "a_zero"),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8  # as bag_model
    return model, weights.astype(np.int64) - zero.astype(np.int64)


def test_unsigned_weights_give_the_exact_integer_product():
    """Activations near 255 against weights near ±127: an AVX2 CPU's signed kernel saturates its 16-bit pair sums
    here; with the weights stored unsigned (value and zero point + 128) every CPU gives the exact product."""
    model, exact_weights = matmul_model(64)
    a = np.full((2, 64), 250, dtype=np.uint8)
    a[1, ::2] = 3
    assert unsigned_matmul_weights(model) == 2
    assert {i.name: i.data_type for i in model.graph.initializer}["w"] == TensorProto.UINT8
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"a": a})
    np.testing.assert_array_equal(y, a.astype(np.int64) @ exact_weights)
    assert unsigned_matmul_weights(model) == 0  # nothing signed is left
    bare, _ = matmul_model(8)
    del bare.graph.node[0].input[3]  # no zero point for B: it is 0 and cannot move with the weights
    assert unsigned_matmul_weights(bare) == 0

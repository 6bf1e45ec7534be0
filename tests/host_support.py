"""What the host, doctor and install tests share: a model to run, pages to send, a host to start.

The host tests run the real pipeline on a stand-in model generated here: a real int8-free ONNX graph over
the real feature inputs (labels = numeric @ W + b, "main" rising with a block's length: a block of about 55
characters or more is main), with a real tokenizer and class vocabulary, so everything from framing to
article building runs for real, and what these tests expect never moves when the shipped model is retrained.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from native_host.browser.client import HostProcess, host_command
from native_host.browser.identity import chromium_origin
from native_host.browser.protocol import rows_from_nodes
from native_host.pipeline.features import CLASS_VOCAB_FILE, COMMON_WORDS_FILE, NUMERIC_NAMES, TOKENIZER_FILE
from native_host.pipeline.inference import CONFIG_FILE, INPUT_NAMES, MODEL_FILE
from native_host.result import LABELS


def write_standin_model(directory: Path) -> Path:
    """A small model with the shipped model's inputs and output, in `directory`."""
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, pre_tokenizers

    directory.mkdir(parents=True, exist_ok=True)
    weights = np.zeros((len(NUMERIC_NAMES), len(LABELS)), dtype=np.float32)
    bias = np.zeros(len(LABELS), dtype=np.float32)
    weights[NUMERIC_NAMES.index("log_chars"), LABELS.index("main")] = 16.0  # log_chars is log1p(chars) / 8
    bias[LABELS.index("main")] = -8.0  # main from about 55 characters on
    bias[LABELS.index("title")] = -6.0
    for head in ("byline", "date"):  # at 0 every block would reach metadata's cue (0.5) and read as a byline
        bias[LABELS.index(head)] = -6.0
    int_inputs = [
        helper.make_tensor_value_info(name, TensorProto.INT64, [1, "blocks", None])
        for name in INPUT_NAMES
        if name != "numeric"
    ]
    numeric = helper.make_tensor_value_info("numeric", TensorProto.FLOAT, [1, "blocks", len(NUMERIC_NAMES)])
    labels = helper.make_tensor_value_info("labels", TensorProto.FLOAT, [1, "blocks", len(LABELS)])
    graph = helper.make_graph(
        [
            helper.make_node("MatMul", ["numeric", "W"], ["scaled"]),
            helper.make_node("Add", ["scaled", "b"], ["labels"]),
        ],
        "standin",
        int_inputs + [numeric],
        [labels],
        [numpy_helper.from_array(weights, "W"), numpy_helper.from_array(bias, "b")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, directory / MODEL_FILE)
    (directory / CONFIG_FILE).write_text(json.dumps({"threshold": 0.5, "model_id": "standin-test"}))
    tokenizer = Tokenizer(models.WordLevel({"[UNK]": 0, "the": 1, "page": 2}, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.save(str(directory / TOKENIZER_FILE))
    (directory / CLASS_VOCAB_FILE).write_text(json.dumps(["<pad>", "<unk>", "content", "nav"]))
    (directory / COMMON_WORDS_FILE).write_text(json.dumps(["the", "and", "of"]))
    return directory


def write_failing_model(directory: Path) -> Path:
    """A stand-in that loads but fails on every page (it gathers a feature column that does not exist), as a
    model file from an incompatible release would: the engine's failure must cost one reply, not the host."""
    import onnx
    from onnx import helper, numpy_helper

    write_standin_model(directory)
    model = onnx.load(directory / MODEL_FILE)
    graph = model.graph
    del graph.node[:]
    graph.initializer.append(
        numpy_helper.from_array(np.full(len(LABELS), 10 * len(NUMERIC_NAMES), dtype=np.int64), "far")
    )
    graph.node.append(helper.make_node("Gather", ["numeric", "far"], ["labels"], axis=2))
    onnx.save(model, directory / MODEL_FILE)
    return directory


def standin_model(tmp_root: Path) -> str:
    """The stand-in model, written under tmp_root: its directory, for --model-dir or PITH_MODEL_DIR."""
    return str(write_standin_model(tmp_root / "standin-model"))


def start_host(log_dir: Path, model_dir: str | None, *options: str, caller=(chromium_origin(),)) -> HostProcess:  # noqa: B008 - a constant
    """A host on `model_dir` (None: the shipped model), logging under log_dir."""
    env = {"PITH_LOG_DIR": str(log_dir)}
    if model_dir:
        env["PITH_MODEL_DIR"] = model_dir
    return HostProcess(host_command(caller, *options), env)


SENTENCE = (
    "The river valley keeps its old stone bridges, and every spring the town repairs one of them "
    "with the same grey rock the first builders cut from the hill above the mill. "
)


def article_html(paragraphs: int, sentences_per_paragraph: int = 4, title: str = "Bridges of the valley") -> str:
    """A plain news-style page: navigation, a long article of numbered paragraphs, a footer."""
    body = "\n".join(
        f"<p class='story-text body-copy'>Paragraph {i}. {SENTENCE * sentences_per_paragraph}</p>"
        for i in range(paragraphs)
    )
    return (
        f"<!doctype html><html lang='en'><head><title>{title} - Valley News</title></head><body>"
        "<nav class='nav'><a href='/'>Home</a> <a href='/news'>News</a> <a href='/about'>About</a></nav>"
        f"<article><h1>{title}</h1><p class='byline'>By Ada Stone</p>{body}</article>"
        "<footer><a href='/privacy'>Privacy</a> <a href='/terms'>Terms</a></footer></body></html>"
    )


def rows_text(snapshot: dict) -> str:
    """`snapshot`'s JSON text with its nodes as rows, the extension's form of them (docs/snapshot.md, "Rows")."""
    rest = {k: v for k, v in snapshot.items() if k != "nodes"}
    return json.dumps({**rest, "rows": rows_from_nodes(snapshot["nodes"])}, ensure_ascii=False)

"""The real `pith host` process, spoken to through the real framing, as the browser does."""

from __future__ import annotations

import json
import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from host_support import article_html, rows_text, standin_model, start_host

from native_host import __version__, limits, snapshot_from_html
from native_host.browser.client import host_command
from native_host.browser.framing import HEADER, StreamClosed, encode_message, frame, read_frame
from native_host.browser.identity import FIREFOX_EXTENSION_ID

ERROR_CODES = {
    "bad_snapshot",
    "bad_request",
    "unknown_type",
    "unsupported_version",
    "too_large",
    "model_unavailable",
    "internal",
}


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return standin_model(tmp_path_factory.mktemp("model"))


@pytest.fixture
def host(tmp_path, model_dir):
    with start_host(tmp_path / "logs", model_dir) as process:
        yield process


@pytest.fixture(scope="module")
def small_snapshot():
    return snapshot_from_html(article_html(6), url="https://news.example/bridges")


def _extract(rid: int, snapshot: dict, want: list[str]) -> dict:
    return {"v": 1, "id": rid, "type": "extract", "snapshot": snapshot, "want": want}


def test_hello_names_the_version_protocol_and_model(host):
    reply = host.request({"v": 1, "id": 1, "type": "hello"})
    assert reply["type"] == "hello" and reply["id"] == 1 and reply["v"] == 1
    assert reply["protocol"] == 1 and reply["version"] == __version__
    assert reply["model_id"] and "CPUExecutionProvider" in reply["providers"]


def test_extract_answers_with_what_was_wanted(host, small_snapshot):
    reply = host.request(_extract(2, small_snapshot, ["highlight", "text"]))
    assert reply["type"] == "result" and reply["id"] == 2
    nodes = small_snapshot["nodes"]
    assert reply["node_ids"] and all(0 <= i < len(nodes) for i in reply["node_ids"])
    highlighted = " ".join(nodes[i].get("text", "") for i in reply["node_ids"])
    assert "Paragraph 3." in highlighted and "Privacy" not in highlighted
    assert {b["index"] for b in reply["blocks"]} == set(range(len(reply["blocks"])))
    assert all(set(b) == {"index", "node_ids", "scores", "main"} for b in reply["blocks"])
    article = reply["article"]
    assert article["url"] == "https://news.example/bridges" and article["lang"] == "en"
    assert "Paragraph 3." in article["text"] and "html" not in article and "markdown" not in article
    assert reply["timings"]["host"] > 0 and reply["truncated"] is False

    full = host.request(_extract(3, small_snapshot, ["article", "markdown"]))
    assert "node_ids" not in full and "text" not in full["article"]
    assert "<p>" in full["article"]["html"] and "Paragraph 0." in full["article"]["markdown"]
    # the article's metadata comes with every reply, the saved file's front matter with the markdown
    assert article["title"] == "Bridges of the valley" and article["byline"] == "Ada Stone"
    assert {
        "date",
        "modified",
        "site_name",
        "dir",
        "description",
        "image",
        "canonical_url",
        "page_type",
        "word_count",
        "reading_minutes",
        "tags",
    } <= article.keys() and "front_matter" not in article
    assert full["article"]["front_matter"].startswith(
        '---\ntitle: "Bridges of the valley"\nsource: "https://news.example/bridges"\nauthor:\n  - "Ada Stone"\n'
    )
    assert "Bridges of the valley" not in full["article"]["markdown"]  # the headline is the header's


def test_a_snapshot_as_json_text_or_rows_gets_the_reply_the_object_gets_and_the_outline_is_its_main_blocks(
    host, small_snapshot
):
    """How the extension asks: the page's JSON text as it is, and the outline rather than every block's scores."""
    hello = host.request({"v": 1, "id": 1, "type": "hello"})
    assert hello["snapshot_json"] is True and hello["snapshot_rows"] is True and "outline" in hello["wants"]
    as_object = host.request(_extract(2, small_snapshot, ["highlight", "outline", "text"]))
    as_text, as_rows = (
        host.request(
            {"v": 1, "id": rid, "type": "extract", "snapshot_json": text, "want": ["highlight", "outline", "text"]}
        )
        for rid, text in ((3, json.dumps(small_snapshot)), (4, rows_text(small_snapshot)))
    )
    for reply in (as_object, as_text, as_rows):
        del reply["id"], reply["timings"]
    assert as_text == as_object and as_rows == as_object
    main = [b for b in as_object["blocks"] if b["main"]]
    assert [o["node_ids"] for o in as_object["outline"]] == [b["node_ids"] for b in main]
    assert sorted({i for o in as_object["outline"] for i in o["node_ids"]}) == as_object["node_ids"]
    assert {o["kind"] for o in as_object["outline"]} <= {"title", "heading", "main"}


def test_first_sends_those_wants_ahead_and_the_two_messages_make_the_whole_reply(host, small_snapshot):
    """How the reader asks: the outline and the article's HTML and metadata in a `part`, then the rest."""
    assert host.request({"v": 1, "id": 1, "type": "hello"})["first"] is True
    want = ["outline", "article", "markdown", "text"]
    whole = host.request(_extract(2, small_snapshot, want))
    host.send({**_extract(3, small_snapshot, want), "first": ["outline", "article"]})
    part, rest = host.receive(), host.receive()
    assert (part["type"], part["id"], rest["type"], rest["id"]) == ("part", 3, "result", 3)
    assert set(part) == {"v", "id", "type", "outline", "headline", "article", "truncated", "timings"}
    assert "html" in part["article"] and "title" in part["article"] and "text" not in part["article"]
    assert set(rest["article"]) == {"markdown", "front_matter", "markdown_blocks", "text"} and "outline" not in rest
    assert len(rest["article"]["markdown_blocks"]) == part["article"]["html"].count("\n") + 1  # a block a line
    joined = {**part, **rest, "article": {**part["article"], **rest["article"]}}
    for reply in (joined, whole):
        del reply["id"], reply["timings"]
    assert joined == whole
    refused = host.request({**_extract(4, small_snapshot, ["outline"]), "first": ["article"]})
    assert refused["type"] == "error" and refused["error"]["code"] == "bad_request"
    assert '"first"' in refused["error"]["message"]


def test_a_long_articles_part_holds_its_first_screen_and_the_rest_the_whole(host):
    """The reader's part carries the article's first screen alone (`first_screen`), where the rest is long; the
    result then carries the whole html, which starts with it, and the two joined are the reply without `first`."""
    snapshot = snapshot_from_html(article_html(60), url="https://news.example/long")
    want = ["outline", "article", "markdown", "text"]
    whole = host.request(_extract(2, snapshot, want))
    host.send({**_extract(3, snapshot, want), "first": ["outline", "article"]})
    part, rest = host.receive(), host.receive()
    assert part["article"]["first_screen"] is True and rest["article"]["first_screen"] is False
    head = part["article"]["html"]
    assert rest["article"]["html"] == whole["article"]["html"] and whole["article"]["html"].startswith(head)
    assert (
        len(re.sub("<[^>]*>", "", head)) >= limits.FIRST_SCREEN_CHARS and len(head) < len(rest["article"]["html"]) / 2
    )
    joined = {**part, **rest, "article": {**part["article"], **rest["article"]}}
    del joined["article"]["first_screen"]
    for reply in (joined, whole):
        del reply["id"], reply["timings"]
    assert joined == whole


def test_pipelined_requests_are_answered_in_order_on_one_port(host, small_snapshot):
    requests = []
    for rid in range(10, 22):
        if rid % 3 == 0:
            requests.append({"v": 1, "id": rid, "type": "hello"})
        elif rid % 3 == 1:
            requests.append(_extract(rid, small_snapshot, ["highlight"]))
        else:
            requests.append({"v": 1, "id": rid, "type": "extract", "snapshot": {"nodes": []}})
    writer = threading.Thread(target=lambda: [host.send(r) for r in requests])
    writer.start()
    replies = [host.receive() for _ in requests]
    writer.join()
    assert [r["id"] for r in replies] == [r["id"] for r in requests]
    assert [r["type"] for r in replies] == [{0: "hello", 1: "result", 2: "error"}[r["id"] % 3] for r in requests]


@pytest.mark.slow
def test_a_20_mb_snapshot_is_served(host):
    snapshot = snapshot_from_html(article_html(10_800, sentences_per_paragraph=10), url="https://news.example/long")
    message = _extract(40, snapshot, ["highlight"])
    assert len(encode_message(message)) > 20_000_000
    reply = host.request(message)
    assert reply["type"] == "result" and reply["id"] == 40
    assert len(reply["blocks"]) > 10_800 and reply["node_ids"]
    assert max(host.frame_sizes) <= limits.MAX_REPLY_FRAME_BYTES


@pytest.mark.slow
def test_an_article_over_1_mb_arrives_whole_in_chunks_under_the_cap(host, model_dir):
    from native_host import Extractor

    snapshot = snapshot_from_html(article_html(3_000), url="https://news.example/long")
    first = len(host.frame_sizes)
    reply = host.request(_extract(41, snapshot, ["article", "text", "markdown"]))
    frames = host.frame_sizes[first:]
    assert len(frames) > 1 and max(frames) <= limits.MAX_REPLY_FRAME_BYTES
    text = reply["article"]["text"]
    assert len(text.encode()) > 1_000_000
    expected = Extractor(model_dir=model_dir).extract_snapshot(snapshot)  # the same engine, in this process
    assert (text, reply["article"]["markdown"], reply["article"]["html"]) == (
        expected.text,
        expected.markdown,
        expected.html,
    )
    assert host.request({"v": 1, "id": 42, "type": "hello"})["id"] == 42  # the port goes on after chunks


def test_every_bad_request_gets_its_error_code_and_the_host_goes_on(host, small_snapshot):
    cases = [
        (frame(b"\xff\xfe not utf-8"), None, "bad_request"),
        (frame(b"{not json"), None, "bad_request"),
        (frame(encode_message({"v": 1, "type": "hello"})), None, "bad_request"),
        (
            frame(encode_message({"v": 1, "id": 50, "type": "extract", "snapshot": small_snapshot, "want": ["pdf"]})),
            50,
            "bad_request",
        ),
        (frame(encode_message({"v": 1, "id": 51, "type": "extract"})), 51, "bad_request"),
        (frame(encode_message({"v": 1, "id": 52, "type": "extract", "snapshot": {"format": "x"}})), 52, "bad_snapshot"),
        (frame(encode_message({"v": 1, "id": 53, "type": "translate"})), 53, "unknown_type"),
        (frame(encode_message({"v": 9, "id": 54, "type": "hello"})), 54, "unsupported_version"),
    ]
    for data, rid, code in cases:
        host.send_raw(data)
        reply = host.receive()
        assert (reply["type"], reply["id"], reply["error"]["code"]) == ("error", rid, code)
        assert reply["error"]["message"]
    assert host.request({"v": 1, "id": 55, "type": "hello"})["type"] == "hello"


def test_a_length_over_the_limit_is_answered_at_once_and_ends_the_session(tmp_path, model_dir):
    """A header announcing more than the limit, and none of its bytes: the reply must not wait for them (it
    once did, for ever), and the host ends the session, as the stream can no longer be read as frames."""
    with start_host(tmp_path / "logs", model_dir) as host:
        assert host.request({"v": 1, "id": 1, "type": "hello"})["type"] == "hello"
        host.send_raw(HEADER.pack(limits.MAX_REQUEST_BYTES + 1))  # input stays open: nothing else comes
        refused = receive_within(host, 60)
        assert refused["id"] is None and refused["error"]["code"] == "too_large"
        assert host.wait(timeout=60) == 1
    log = (tmp_path / "logs" / "host.log").read_text()
    assert "where the next frame starts cannot be known" in log and "Traceback" not in log


def receive_within(host, seconds: float) -> dict:
    """The host's next reply; fails (stopping the host, which frees the waiting read) after `seconds`."""
    got: list = []

    def receive() -> None:
        try:
            got.append(host.receive())
        except EOFError as exc:
            got.append(exc)

    reader = threading.Thread(target=receive, daemon=True)
    reader.start()
    reader.join(timeout=seconds)
    if reader.is_alive():
        host.proc.kill()
        reader.join(timeout=10)
        raise AssertionError(f"no reply within {seconds} s")
    if isinstance(got[0], EOFError):
        raise got[0]
    return got[0]


def test_a_missing_model_is_model_unavailable_naming_pith_doctor(tmp_path, small_snapshot):
    (tmp_path / "empty-model").mkdir()
    with start_host(tmp_path / "logs", str(tmp_path / "empty-model")) as host:
        hello = host.request({"v": 1, "id": 1, "type": "hello"})
        assert hello["model_id"] is None and hello["model_error"]["code"] == "model_unavailable"
        reply = host.request(_extract(2, small_snapshot, ["text"]))
        assert reply["error"]["code"] == "model_unavailable" and "pith doctor" in reply["error"]["message"]


def test_error_codes_are_the_documented_set():
    documented = Path(__file__).parents[1].joinpath("docs", "protocol.md").read_text("utf-8")
    from native_host import errors

    codes = {cls.code for cls in vars(errors).values() if isinstance(cls, type) and issubclass(cls, errors.PithError)}
    assert codes >= ERROR_CODES
    assert all(f"`{code}`" in documented for code in ERROR_CODES)


def test_stdout_carries_frames_and_nothing_else(tmp_path, model_dir, small_snapshot):
    with start_host(tmp_path / "logs", model_dir, "--preload") as host:
        host.send({"v": 1, "id": 1, "type": "hello"})
        host.send(_extract(2, small_snapshot, ["highlight", "article", "text", "markdown"]))
        host.send_raw(frame(b"junk"))
        host.close_input()
        assert host.wait(timeout=60) == 0
        ids = []
        while True:
            try:
                ids.append(json.loads(read_frame(host.proc.stdout, limits.MAX_REPLY_FRAME_BYTES))["id"])
            except StreamClosed as closed:
                assert closed.clean, closed.reason  # no stray bytes after the last frame
                break
        assert ids == [1, 2, None]


def test_idle_timeout_ends_the_host_and_logs_why(tmp_path, model_dir):
    with start_host(tmp_path / "logs", model_dir, "--idle-timeout", "0.5") as host:
        assert host.request({"v": 1, "id": 1, "type": "hello"})["id"] == 1
        assert host.wait(timeout=60) == 0
    assert "idle for" in (tmp_path / "logs" / "host.log").read_text()


def test_end_of_input_inside_a_frame_exits_with_the_reason_logged(tmp_path, model_dir):
    with start_host(tmp_path / "logs", model_dir) as host:
        host.send_raw(HEADER.pack(100) + b'{"v":1')
        host.close_input()
        assert host.wait(timeout=60) == 1
    assert "input closed inside a frame (6 of 100 bytes)" in (tmp_path / "logs" / "host.log").read_text()


def test_a_foreign_extension_is_refused_without_a_byte_on_stdout(tmp_path, model_dir):
    with start_host(
        tmp_path / "logs", model_dir, caller=("chrome-extension://abcdefghijklmnopabcdefghijklmnop/",)
    ) as host:
        assert host.wait(timeout=60) == 3
        assert host.proc.stdout.read() == b""
    assert "is not the Pith extension" in (tmp_path / "logs" / "host.log").read_text()


def test_firefox_arguments_are_accepted(tmp_path, model_dir):
    caller = (str(tmp_path / "org.pith.reader.json"), FIREFOX_EXTENSION_ID)
    with start_host(tmp_path / "logs", model_dir, caller=caller) as host:
        assert host.request({"v": 1, "id": 1, "type": "hello"})["type"] == "hello"


def test_json_lines_mode_serves_a_script(tmp_path, model_dir, small_snapshot):
    big = snapshot_from_html(article_html(3_000), url="https://news.example/long")
    lines = [
        {"v": 1, "id": 1, "type": "hello"},
        _extract(2, small_snapshot, ["text"]),
        "not json",
        _extract(3, big, ["text"]),
    ]
    data = b"".join((encode_message(x) if isinstance(x, dict) else x.encode()) + b"\n" for x in lines)
    env = {"PITH_LOG_DIR": str(tmp_path / "logs"), **({"PITH_MODEL_DIR": model_dir} if model_dir else {})}
    done = subprocess.run(
        host_command((), "--stdio-jsonl"), input=data, capture_output=True, timeout=300, env={**os.environ, **env}
    )
    assert done.returncode == 0, done.stderr
    replies = [json.loads(line) for line in done.stdout.splitlines()]
    assert [(r["id"], r["type"]) for r in replies] == [(1, "hello"), (2, "result"), (None, "error"), (3, "result")]
    assert len(replies[3]["article"]["text"]) > 1_000_000  # one line, however long: no chunks in this mode


def test_the_log_rotates(tmp_path, monkeypatch):
    import logging

    from native_host.browser.logs import setup_logging

    monkeypatch.setenv("PITH_LOG_DIR", str(tmp_path))
    path = setup_logging("INFO")
    try:
        for i in range(limits.LOG_MAX_BYTES // 100 * 2):
            logging.getLogger("rotation").info("line %d %s", i, "x" * 100)
        assert path.exists() and (tmp_path / "host.log.1").exists()
        assert not (tmp_path / f"host.log.{limits.LOG_BACKUPS + 1}").exists()
    finally:
        for handler in list(logging.getLogger().handlers):
            logging.getLogger().removeHandler(handler)
            handler.close()


def test_an_engine_failure_is_internal_names_the_log_and_the_host_goes_on(tmp_path, small_snapshot):
    from host_support import write_failing_model

    model_dir = str(write_failing_model(tmp_path / "failing-model"))
    with start_host(tmp_path / "logs", model_dir) as host:
        reply = host.request(_extract(1, small_snapshot, ["text"]))
        assert reply["id"] == 1 and reply["error"]["code"] == "internal"
        assert str(tmp_path / "logs" / "host.log") in reply["error"]["message"]
        assert host.request({"v": 1, "id": 2, "type": "hello"})["type"] == "hello"
    assert "request 1 (extract) failed" in (tmp_path / "logs" / "host.log").read_text()

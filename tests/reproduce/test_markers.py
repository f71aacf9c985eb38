"""The runner's output read as a stream: markers, the command's log, bounded buffers."""

from __future__ import annotations

import base64
import hashlib
import json

from reproaudit.reproduce.markers import MarkerReader

NONCE = "abc123"


def block(data: bytes) -> bytes:
    encoded = base64.b64encode(data).decode()
    digest = hashlib.sha256(data).hexdigest()
    return (
        f"\n::reproaudit::{NONCE} outputs-begin\n{encoded}\n"
        f"::reproaudit::{NONCE} outputs-end {digest}\n"
    ).encode()


def status(**fields: object) -> bytes:
    return f"\n::reproaudit::{NONCE} status {json.dumps(fields)}\n".encode()


def test_markers_split_from_the_log_in_chunks_of_any_size():
    stream = b"line one\n\nline three\n" + block(b'{"a": 1}') + status(outputs="ok")
    reader = MarkerReader(NONCE, "o.json")
    for i in range(0, len(stream), 7):
        reader.feed(stream[i : i + 7])
    got = reader.finish()
    assert got.outputs == b'{"a": 1}'
    assert got.status == {"outputs": "ok"}
    assert got.log.data() == b"line one\n\nline three\n"  # the runner's blank lines dropped


def test_a_forged_block_before_the_runners_status_is_not_taken():
    forged = block(b'{"a": 999}')
    reader = MarkerReader(NONCE, "o.json")
    reader.feed(forged + status(outputs="the command wrote no o.json"))
    assert reader.finish().outputs is None


def test_a_line_without_end_is_log_text_and_stays_bounded():
    reader = MarkerReader(NONCE, "o.json", keep=1024)
    for _ in range(64):
        reader.feed(b"x" * (64 * 1024))
    reader.feed(b"\nTHE END\n")
    got = reader.finish()
    assert got.log.data().endswith(b"THE END\n")
    assert len(got.log.data()) <= 1024 and got.log.total > 4 * 1024 * 1024

"""tf.summary (TF2) feeds the run record's `summaries` (the Charts tab), as torch's SummaryWriter does,
and writes nothing to disk. Return values, the step rules and the no-step message are TF 2.21's
(tf.summary.scalar returns a bool tensor: False without a default writer); test_the_stored_lines_are_tensorflows
runs the same programs through real TensorFlow (make test-oracles)."""
import os

import pytest

from engine.runner import run_user_code
from tests.engine.conftest import run_real_tensorflow

LOOP = """import tensorflow as tf
writer = tf.summary.create_file_writer("logs/train")
print(tf.summary.scalar("ignored", 1.0, step=0))          # no default writer: nothing kept
w = tf.Variable(3.0)
with writer.as_default():
    for step in range(4):
        w.assign_sub(0.5)
        tf.summary.scalar("loss", w * w, step=step)
        tf.summary.histogram("weights", tf.constant([1.0, 2.0, 2.5, 4.0]) * w, step=step)
with writer.as_default(step=7):
    print(tf.summary.scalar("acc", 0.25), tf.summary.experimental.get_step())
print(tf.summary.experimental.get_step())
tf.summary.experimental.set_step(tf.constant(9, tf.int64))
with writer.as_default():
    tf.summary.scalar("acc", tf.constant(0.5))
writer.flush()
"""
TF_LOOP_PRINTED = ["tf.Tensor(False, shape=(), dtype=bool)", "tf.Tensor(True, shape=(), dtype=bool) 7", "None"]
NO_STEP = """import tensorflow as tf
with tf.summary.create_file_writer("logs").as_default():
    tf.summary.scalar("loss", 0.5)
"""
TF_NO_STEP = ("No step set. Please specify one either through the `step` argument or "
              "through tf.summary.experimental.set_step()")
NOOP = """import tensorflow as tf
with tf.summary.create_noop_writer().as_default():
    print(bool(tf.summary.scalar("loss", 0.5, step=1)))
"""


def test_scalars_and_histograms_reach_the_record_and_nothing_the_disk(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    record = run_user_code(LOOP)
    assert record["ok"], record["error"]
    assert record["stdout"].splitlines() == TF_LOOP_PRINTED
    scalars = {s["tag"]: s["points"] for s in record["summaries"]["scalars"]}
    assert scalars == {"loss": [[0, 6.25], [1, 4.0], [2, 2.25], [3, 1.0]], "acc": [[7, 0.25], [9, 0.5]]}
    (hist,) = record["summaries"]["histograms"]
    assert hist["tag"] == "weights" and [s["step"] for s in hist["snapshots"]] == [0, 1, 2, 3]
    assert hist["snapshots"][0]["min"] == 2.5 and hist["snapshots"][0]["max"] == 10.0
    assert os.listdir(tmp_path) == []


def test_a_summary_without_a_step_is_tfs_value_error():
    record = run_user_code(NO_STEP)
    assert record["error"]["type"] == "ValueError"
    assert record["error"]["message"] == TF_NO_STEP


def test_a_noop_writer_keeps_nothing_and_a_traced_summary_is_refused_by_name():
    record = run_user_code(NOOP + """
@tf.function
def step(x):
    tf.summary.scalar("x", x, step=0)
    return x
with tf.summary.create_file_writer("logs").as_default():
    step(tf.constant(1.0))
""")
    assert record["stdout"] == "False\n" and "summaries" not in record
    assert record["error"]["kind"] == "unsupported"            # (tf.function's trace names the line)
    assert "UnsupportedError: tf.summary.scalar inside a tf.function is not supported" in record["error"]["message"]


@pytest.mark.oracle
def test_the_stored_lines_are_tensorflows():
    no_step = "try:\n" + "".join("    " + line + "\n" for line in NO_STEP.splitlines()) + (
        "except ValueError as refused:\n    print(refused)\n")
    # NO_STEP first: LOOP's set_step stays set for the process
    stdout, _ = run_real_tensorflow("import os, tempfile\nos.chdir(tempfile.mkdtemp())\n"   # its logs, not ours
                                    + no_step + "print('==')\n" + LOOP + "print('==')\n" + NOOP)
    refused, loop, noop = stdout.split("==\n")
    assert loop.splitlines() == TF_LOOP_PRINTED
    assert refused == TF_NO_STEP + "\n"
    assert noop == "False\n"

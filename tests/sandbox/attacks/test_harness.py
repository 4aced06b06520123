"""The attack harness itself: a contained attack passes through it, and its checks can fail."""
import os

import pytest

from app.sandbox.zygote import RUN_ID_BASE
from harness import LiveServer, files_of_runs


def test_a_contained_attack_answers_with_its_kind(attack):
    record = attack("print(open('/etc/shadow').read())")
    assert record["ok"] is False
    assert record["error"]["kind"] == "security_violation"
    assert "root:" not in record["stdout"]


def test_leftovers_sees_a_forgotten_scratch_folder(tmp_path):
    base = tmp_path / "dagscope-scratch-x"
    (base / "run-1").mkdir(parents=True)
    (tmp_path / "dagscope-cc-y").mkdir()
    server = LiveServer(url="http://127.0.0.1:9", pid=0, data_dir=tmp_path, tmp_dir=tmp_path)
    assert sorted(server.leftovers()) == ["compiler folder dagscope-cc-y", "scratch run-1"]


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can give a file a run's uid")
def test_files_of_runs_sees_a_file_a_run_left_and_nothing_else(tmp_path):
    (tmp_path / "someone-else").write_text("x")
    (tmp_path / "folder").mkdir()
    left = tmp_path / "folder" / "left-by-a-run"
    left.write_text("x")
    os.chown(left, RUN_ID_BASE + 7, RUN_ID_BASE + 7)
    assert files_of_runs([str(tmp_path)]) == {str(left)}
    assert files_of_runs([str(tmp_path)], depth=1) == set()

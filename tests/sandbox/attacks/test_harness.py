"""The attack harness itself: a contained attack passes through it, and its checks can fail."""
import pytest

from harness import LiveServer


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

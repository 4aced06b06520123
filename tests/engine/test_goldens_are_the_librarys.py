"""Every golden (tests/engine/*_sweep/NAME.out) is what the real library printed, as recorded by
record_goldens.py: its sha256 is the library output's in MANIFEST.json, for the program's current
source. A golden edited by hand, for instance to Dagscope's output, fails here until recorded again."""
from __future__ import annotations

import pytest

from tests.engine import record_goldens
from tests.engine.record_goldens import LIBRARIES, load_manifest, programs, sha256


def golden_problem(library: str, name: str, golden: str | None = None) -> str | None:
    """Why the golden of `name` is not known to be the library's output (None if it is)."""
    lib = LIBRARIES[library]
    manifest = load_manifest(lib)
    entry = manifest["programs"].get(name)
    if entry is None:
        return f"{name} has no entry in {lib.folder.name}/MANIFEST.json: record it with record_goldens.py"
    if not str(entry["library_version"]).startswith(lib.version):
        return f"{name}'s golden comes from {lib.module} {entry['library_version']}, not {lib.version}"
    if sha256((lib.folder / f"{name}.py").read_text()) != entry["program_sha256"]:
        return f"{name}.py changed since its golden was recorded: record it again"
    golden = (lib.folder / f"{name}.out").read_text() if golden is None else golden
    if sha256(golden) == entry["library_sha256"]:
        return None
    if sha256(golden) == entry["dagscope_sha256"] or golden == record_goldens.dagscope_output(
            (lib.folder / f"{name}.py").read_text()):
        return f"{name}.out is Dagscope's output, not {lib.module}'s"
    return f"{name}.out is not what {lib.module} printed when it was recorded"


def _goldens():
    for library, lib in sorted(LIBRARIES.items()):
        for name in programs(lib):
            yield pytest.param(library, name, id=f"{library}-{name}")


@pytest.mark.parametrize("library,name", list(_goldens()))
def test_golden_is_the_librarys_output(library, name):
    assert golden_problem(library, name) is None, golden_problem(library, name)


def test_every_manifest_entry_has_its_program():
    for lib in LIBRARIES.values():
        assert sorted(load_manifest(lib)["programs"]) == programs(lib) or not programs(lib)


def test_a_golden_replaced_by_dagscopes_output_fails():
    # 02_polyfit_autograd: Dagscope's float32 sums print other last digits than PyTorch's.
    lib, name = LIBRARIES["torch"], "02_polyfit_autograd"
    ours = record_goldens.dagscope_output((lib.folder / f"{name}.py").read_text())
    assert ours != (lib.folder / f"{name}.out").read_text()
    assert golden_problem("torch", name, ours) == f"{name}.out is Dagscope's output, not torch's"
    assert "not what torch printed" in golden_problem("torch", name, ours + "\n")


def test_the_recorder_refuses_dagscopes_facade_and_other_versions():
    import dataclasses
    import importlib.util
    facade = dataclasses.replace(LIBRARIES["torch"], module="engine.compat.torch", version="", setup="", describe="{}")
    with pytest.raises(SystemExit, match="refused: `import engine.compat.torch` is Dagscope's facade"):
        record_goldens.library_outputs(facade, [])
    if importlib.util.find_spec("torch") is not None:
        other = dataclasses.replace(LIBRARIES["torch"], version="1.9.")
        with pytest.raises(SystemExit, match=r"refused: torch 2\.13\.0.* is installed, the goldens are 1\.9\.\*"):
            record_goldens.library_outputs(other, [])


def test_a_program_the_library_cannot_run_gets_no_golden(tmp_path, monkeypatch):
    # a stand-in library (the standard json module) so that the test needs no large install
    lib = record_goldens.Library("json", "2.", tmp_path, "", "{}")
    monkeypatch.setitem(LIBRARIES, "stand-in", lib)
    (tmp_path / "01_fine.py").write_text("print(1 / 4)\n")
    (tmp_path / "02_raises.py").write_text("print('partial')\nraise ValueError('no such thing')\n")
    assert record_goldens.record("stand-in", []) == 1
    assert (tmp_path / "01_fine.out").read_text() == "0.25\n" and not (tmp_path / "02_raises.out").exists()
    manifest = load_manifest(lib)["programs"]
    assert sorted(manifest) == ["01_fine"] and manifest["01_fine"]["library_sha256"] == sha256("0.25\n")

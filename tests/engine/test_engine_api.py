"""Dagscope's own API in pasted code: `import dagscope` and its capture decorators."""


def test_dagscope_function_traces_per_signature(run):
    rec = run("import dagscope as ds\n\n@ds.function\ndef f(x):\n    if x.sum() > 0:\n        return x * 2\n"
              "    return -x\n\nprint(f(ds.tensor([1.0, 2.0])))\nprint(f(ds.tensor([-1.0, -2.0])))\n")
    assert rec["ok"], rec["error"]
    assert rec["stdout"] == "tensor([2., 4.])\ntensor([1., 2.])\n"
    assert any(g["capture"] == "function" for g in rec["graphs"])


def test_dagscope_compile_and_trace_exist():
    import engine
    assert callable(engine.compile) and callable(engine.trace) and callable(engine.script)

"""The gallery: every example has a title in both languages and concepts; the seeds' concepts are covered."""
import ast


def test_examples_listed_with_titles(client):
    examples = client.get("/api/examples").json()["examples"]
    assert len(examples) >= 12
    for ex in examples:
        assert ex["title"] and ex["title"] != ex["id"], ex["id"]
        assert ex["title_zh"], ex["id"]
        assert ex["concepts"], ex["id"]
        ast.parse(ex["code"])  # every example is valid Python


def test_examples_cover_the_seed_concepts(client):
    codes = "\n".join(ex["code"] for ex in client.get("/api/examples").json()["examples"])
    for needle in ["requires_grad=True", "tf.compat.v1.Session", ".numpy()", "@tf.function",
                   "torch.jit.trace", "torch.jit.script", "torch.no_grad()", ".detach()",
                   "retain_graph=True", "torch.autograd.Function", "opt.step()", "torch.compile", "buffer",
                   "nn.Conv2d"]:
        assert needle in codes, needle


def test_seed_example_runs(run, client):
    ex = {e["id"]: e for e in client.get("/api/examples").json()["examples"]}["01_autograd_basics"]
    record = run(ex["code"])
    assert record["ok"] and record["stdout"] == "tensor([2., 2.])\n"


def test_metadata_lines_stay_out_of_the_editor_code():
    from app.routes.examples import parse_example
    ex = parse_example("x", "# title: T\n# title_zh: 中\n# concept: a, b\n# Why it matters.\nimport torch\n# not header: kept\n")
    assert (ex["title"], ex["title_zh"], ex["concepts"]) == ("T", "中", ["a", "b"])
    assert ex["code"] == "# Why it matters.\nimport torch\n# not header: kept\n"
    assert ex["summary"] == "Why it matters."

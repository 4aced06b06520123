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


# A comment left in English in zh-CN must be code, not prose: an output the line prints
# (`# tensor([2., 2.])`, `# 5`, `# True`, `# [2. 4.]`), a backward node's name (`# MulBackward0`)
# or a shape change (`# 28x28 -> 14x14`).
CODE_COMMENT = r"(tensor\(.*\)|[\d.\[\] -]+|True|False|[A-Z][A-Za-z]*Backward\d|\d+x\d+ -> \d+x\d+)"


def comments(code: str) -> list[tuple[int, str]]:
    import io
    import tokenize
    return [(tok.start[0], tok.string[1:].strip()) for tok in tokenize.generate_tokens(io.StringIO(code).readline)
            if tok.type == tokenize.COMMENT]


def without_comments(code: str) -> list:
    import io
    import tokenize
    # a line's end comes after its comment: only its row is the same
    return [(tok.type, tok.string, tok.start[0] if tok.type in (tokenize.NL, tokenize.NEWLINE) else tok.start)
            for tok in tokenize.generate_tokens(io.StringIO(code).readline) if tok.type != tokenize.COMMENT]


def test_every_example_has_chinese_comments_and_the_same_program(client):
    import json
    import re
    from app.routes.examples import COMMENTS_ZH
    used = set()
    for ex in client.get("/api/examples").json()["examples"]:
        zh = ex["code_zh"]
        assert without_comments(zh) == without_comments(ex["code"]), ex["id"]   # same tokens, same places
        assert len(zh.splitlines()) == len(ex["code"].splitlines())
        for (line, english), (_, chinese) in zip(comments(ex["code"]), comments(zh)):
            if english != chinese:
                used.add(english)
                assert re.search(r"[\u4e00-\u9fff]", chinese), (ex["id"], line, chinese)
            else:
                assert re.fullmatch(CODE_COMMENT, english), f"{ex['id']} line {line}: English left: {english!r}"
        if ex["summary"]:
            assert ex["summary_zh"] and re.search(r"[\u4e00-\u9fff]", ex["summary_zh"]), ex["id"]
    assert set(json.loads(COMMENTS_ZH.read_text())) == used, "a translation no example uses"


def test_a_comment_is_translated_in_place():
    from app.routes.examples import translate_comments
    code = "x = 1  # one\ns = '# one'\n# two\n"
    assert translate_comments(code, {"one": "一", "two": "二"}) == "x = 1  # 一\ns = '# one'\n# 二\n"
    assert translate_comments("x = (\n", {"x": "y"}) == "x = (\n"      # unreadable code: as it is

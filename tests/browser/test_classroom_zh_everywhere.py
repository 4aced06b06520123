"""Issue 17, item 7: in 简体中文 no English is left on the page. Every view (Forward, Backward,
Step, Static, Passes, Kernels, Memory, Output, Charts, and the inspector on both DAGs) is drawn
for every gallery example, and its visible text may hold a Latin word only where it is not prose:

- inside code (`code`, `pre`, `kbd`, the editor): the user's program, IR, generated C, outputs,
  and what Python or a library raised or warned, quoted as it printed it — but an op's formula
  and backward rule (`.rule`, `.formula`) are read as prose: there only the formula's variables
  (MATH) are not words;
- an identifier of this program: a NAME token of its source (`x`, `my_model`, `backward`), or a
  name the record gives a node, module, graph or tensor (`op`, `label`, `name`, `module`,
  `dtype`, `grad_fn`, `forward_op`, a kernel's name);
- an op name: a key of the op registry (/api/ops) or a backward node's name (`MulBackward0`);
- a function call (a word right before "(": `sign(x)`), a single letter (a variable in a formula),
  and a word joined to digits, `_`, `.` or `%` (`fc1.weight`, `grad_x`, `%17`, `f32`);
- the few technical names below, which Chinese text writes in Latin letters too, and the API
  names the page teaches (API: `Session`, `SummaryWriter`, ...), which it writes as code does.
Numbers are not words. Anything else fails the test, listed with the view it was on.

KNOWN_ENGLISH lists the engine's texts still written in English only (plain strings in the record,
no message key yet): a text that starts so is passed over, and each entry must still be seen —
the list may only shrink. It is empty: the engine's warnings and titles the examples show carry
message keys (engine/hooks.py Message); another program's own words in them (PyTorch's
TracerWarning, TensorFlow's retrace reason) are quoted as code."""
import io
import json
import re
import tokenize
from pathlib import Path

import pytest

from tests.browser.conftest import open_page, painted, shot

pytestmark = pytest.mark.browser
ROOT = Path(__file__).resolve().parents[2]
TABS = ["forward", "backward", "step", "static", "passes", "kernels", "memory", "charts", "compare", "output"]
# Names Chinese technical text writes in Latin letters: products, formats, file and number words.
TECHNICAL = {"PyTorch", "TensorFlow", "Keras", "Python", "Dagscope", "NumPy", "Graphviz", "JAX",
             "SVG", "PNG", "DOT", "IR", "SSA", "AST", "BLAS", "GEMM", "CPU", "C", "NaN", "inf", "nan",
             "Ctrl", "Esc", "Tab", "Shift", "Enter", "ms", "KB", "MB", "GB", "kB", "B", "s",
             "stdout", "stderr", "npy", "dagscope", "vjp", "jaxpr", "ONNX"}
# The engine's warnings and graph titles carry message keys (engine/hooks.py Message): none is left.
KNOWN_ENGLISH: list[str] = []
API = {"Session", "SummaryWriter", "TracerWarning", "detach", "cond", "no_grad"}
# The variables of the op registry's formulas and rules (out[n,o] = bias[o] + ...; grad_x = grad ...)
MATH = {"grad", "out", "bias", "weight", "target", "logp", "dim", "dims", "shape", "cond", "Phi", "phi", "n"}

# The visible text of `root`, outside code, with the piece of the page each text is in.
TEXTS_JS = """(root) => {
  const out = [];
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!n.textContent.trim() || !el) continue;
    if (el.closest("script, style, .cm-editor, [hidden], .sr-only")) continue;
    if (el.closest("code, pre, kbd, samp") && !el.closest(".rule, .formula")) continue;
    const box = el.getBoundingClientRect();
    if (!box.width && !box.height) continue;          // not drawn
    if (getComputedStyle(el).visibility === "hidden") continue;
    out.push(n.textContent.trim());
  }
  return out;
}"""


def identifiers(code: str, record: dict, ops: dict) -> set[str]:
    names = {tok.string for tok in tokenize.generate_tokens(io.StringIO(code).readline) if tok.type == tokenize.NAME}
    names |= set(ops["ops"]) | set(ops["grad_fns"])

    def walk(value):
        if isinstance(value, dict):
            for key, item in value.items():
                if key in ("op", "label", "name", "module", "dtype", "grad_fn", "forward_op", "function", "type") \
                        and isinstance(item, str):
                    names.update(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", item))
                else:
                    walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)
    walk(record)
    return names


def english_words(text: str, allowed: set[str]) -> list[str]:
    found = []
    for m in re.finditer(r"[A-Za-z0-9_.%'\-]*[A-Za-z][A-Za-z0-9_.%'\-]*(\()?", text):
        token, call = m.group(0).rstrip("("), m.group(1)
        token = token.strip(".'-")
        if call or len(re.sub(r"[^A-Za-z]", "", token)) < 2:
            continue                                   # a function call, a single letter
        if re.search(r"[0-9_.%]", token) or token in TECHNICAL | API | MATH or token in allowed:
            continue
        if all(part in allowed or part in TECHNICAL | API | MATH for part in re.split(r"[-']", token) if part):
            continue
        found.append(token)
    return found


def examples(page) -> list[dict]:
    return page.evaluate("fetch('/api/examples').then(r => r.json()).then(j => j.examples)")


def visible_tabs(page) -> list[str]:
    return page.evaluate("""tabs => tabs.filter((tab) => {
        const b = document.querySelector(`[data-tab=${tab}]`); return b && b.offsetParent !== null && !b.disabled; })""", TABS)


# Show something (the page's select(tab), selectNode(id) or step(n); none: as it is), wait until
# painted (conftest.painted), and read the visible text of `selector` (TEXTS_JS): one round trip to
# the page instead of three, as the walk does this ~40 times per example.
SHOW_AND_READ_JS = """async ([action, arg, selector]) => {
  if (action) await window.dagscope[action](arg);
  await new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)));
  const root = document.querySelector(selector);
  if (!root) throw new Error(`no ${selector} on the page`);
  return (%s)(root);
}""" % TEXTS_JS


def english_on_page(page, code: str, record: dict, ops: dict, known_seen: set,
                    previous: tuple | None = None) -> dict[str, list[str]]:
    allowed = identifiers(code, record, ops)
    # Compare draws the previous run too: its names are identifiers there
    allowed_compare = allowed | (identifiers(*previous, ops) if previous else set())
    left: dict[str, list[str]] = {}

    def look(where: str, selector: str, action: str | None = None, arg=None):
        names = allowed_compare if where == "compare" else allowed
        for text in page.evaluate(SHOW_AND_READ_JS, [action, arg, selector]):
            known = [k for k in KNOWN_ENGLISH if re.match(k, text)]
            if known:
                known_seen.update(known)
                continue
            words = english_words(text, names)
            if words:
                left.setdefault(where, []).append(f"{text[:120]!r}: {words}")

    for tab in visible_tabs(page):
        look(tab, f"[data-panel='{tab}']", "select", tab)
        if tab in ("forward", "backward"):
            nodes = page.eval_on_selector_all(f"#view-{tab} g.node", "els => els.map(e => e.id)")
            for node in nodes[:1] + nodes[-1:]:
                look(f"{tab} inspector ({node})", f"#inspector-{tab}", "selectNode", node)
        if tab == "step" and page.evaluate("window.dagscope.state.record.graphs.some(g => g.steps && g.steps.length)"):
            look("step 2", "[data-panel='step']", "step", 1)
    look("status and gallery", "header.topbar")
    look("gallery", "#gallery")
    return left


def test_no_english_prose_in_any_view_of_any_example(page):
    page.set_viewport_size({"width": 1440, "height": 900})
    open_page(page, "/?lang=zh-CN")
    ops = page.evaluate("fetch('/api/ops').then(r => r.json())")
    problems, known_seen, previous = {}, set(), None
    for ex in examples(page):
        page.evaluate("code => window.dagscope.setCode(code)", ex["code_zh"])
        record = page.evaluate("() => window.dagscope.run()")
        left = english_on_page(page, ex["code_zh"], record, ops, known_seen, previous)
        previous = (ex["code_zh"], record)
        if left:
            problems[ex["id"]] = left
        if ex["id"] in SHOTS:
            page.evaluate(f"window.dagscope.select('{SHOTS[ex['id']]}')")
            painted(page)
            shot(page, f"zh-CN_1440_every_view_{ex['id']}_{SHOTS[ex['id']]}")
    assert not problems, json.dumps(problems, ensure_ascii=False, indent=1)
    assert known_seen == set(KNOWN_ENGLISH), f"no longer seen, remove from KNOWN_ENGLISH: {set(KNOWN_ENGLISH) - known_seen}"


SHOTS = {"02_chain_rule": "step", "05_tf_function_control_flow": "static", "11_compile_fusion": "passes", "12_cnn": "backward", "06_trace_vs_script": "output"}


def test_the_word_rule_is_narrow():
    allowed = {"x", "my_model", "mul"}
    assert english_words("节点 mul 的梯度 grad_x = sign(x) * 2", allowed) == []
    assert english_words("fc1.weight 与 %17 相同，f32[3]", allowed) == []
    assert english_words("PyTorch 的 NaN 与 inf", allowed) == []
    assert english_words("stopped after 2 s", allowed) == ["stopped", "after"]
    assert english_words("the trace is stale", allowed) == ["the", "trace", "is", "stale"]
    assert english_words("scalar", allowed) == ["scalar"]
    assert english_words("1.5e-3 0x1F", allowed) == []

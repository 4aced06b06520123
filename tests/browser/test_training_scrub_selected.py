"""Issue 17's scrub goal with a node selected: the seed MLP trained 200 steps, presenting at 1280x720
in 简体中文, a small parameter (fc2.bias, kept whole in the trajectory, its statistics the series':
engine/record/trajectory.py) selected while scrubbing. A scrubbed frame rewrites only what the
iteration changes in the inspector (its note, value, gradient and the charts' markers:
inspector.js inspectIteration), not the whole inspector nor the backward one, with no new layout of
the graph. The goal (<= 50 ms a redraw) is test_training_scrub_cost.py's, in the main thread's CPU
time; the wall-time bound here is what a loaded machine meets (60-100 ms measured at load 20; 5-30 ms
at load 2-8: bench/RESULTS.md)."""
import pytest

from tests.browser.conftest import painted, shot
from tests.browser.test_training_scrub import run_mlp

pytestmark = pytest.mark.browser

# a drag is many redraws: measured after one pass over the slider (the first redraws of a selected
# node bring its charts' and tables' code paths through the JIT)
MEASURE = """n => { const out = [];
    for (let k = 0; k < n; k += 4) window.dagscope.scrub(k);
    for (const k of [n - 1, 1, Math.floor(n / 2), 3, n - 2, 7, n - 10, 20, n - 1]) {
      const t0 = performance.now();
      window.dagscope.scrub(k);
      document.querySelector('#view-forward svg').getBoundingClientRect();
      document.querySelector('#inspector-forward').getBoundingClientRect();   // style and layout done
      out.push(performance.now() - t0);
    } return out; }"""


def test_scrubbing_with_a_parameter_selected_rewrites_only_its_values(reused_page):
    page, record = run_mlp(reused_page, size=(1280, 720), present=True, lang="zh-CN")
    g = record["graphs"][0]
    tr = g["trajectory"]
    bias = next(n for n in g["forward"]["nodes"] if n["label"] == "fc2.bias")
    kept = next(t for t in tr["tensors"] if t["node"] == bias["id"] and t["of"] == "value")["at"]
    assert kept[-1]["data"] is not None and kept[-1]["stats"] is None      # whole, statistics in the series
    page.evaluate("id => window.dagscope.selectNode(id)", bias["id"])
    # the inspectors' other parts stay the nodes they were: only the iteration's are written again
    page.evaluate("""() => { window.kept = [document.querySelector('#inspector-forward .inspector-title'),
                                            document.querySelector('#inspector-backward').firstElementChild]; }""")
    renders = []
    page.on("request", lambda r: renders.append(r.url) if "/api/render" in r.url else None)
    times = page.evaluate(MEASURE, len(tr["iterations"]))
    print("scrub redraws with fc2.bias selected, ms:", [round(x, 1) for x in times])
    assert sorted(times)[len(times) // 2] <= 250, times
    assert renders == []
    assert page.evaluate("window.kept.every(e => e.isConnected)")
    # the inspector's numbers at the last iteration: the kept data, and the series' statistics
    k = len(tr["iterations"]) - 1
    shown = page.evaluate("""async ([node, k]) => { const m = await import('/static/js/training.js');
        return m.tensorAt(window.dagscope.state.record.graphs[0].trajectory, node, 'value', k); }""", [bias, k])
    series = next(s for s in tr["series"] if s["node"] == bias["id"] and s["of"] == "value")
    assert shown["data"] == kept[k]["data"] and shown["stats"]["mean"] == series["stats"][k][2]
    note = page.inner_text("#inspector-forward .insp-iter-head")
    assert str(tr["iterations"][k]) in note
    assert page.locator("#inspector-forward .insp-charts .traj-chart").count() == 2
    painted(page)
    shot(page, "zh-CN_present_1280_training_scrub_bias_selected")

"""Issue 17's scrub goal, "scrubbing redraws in <= 50 ms (values only, no re-layout)", measured so that
a loaded machine cannot fail it by waiting: the seed MLP trained 200 steps, presenting at 1280x720,
scrubbed with and without a node selected, each scrubbed frame carried through to its paint (the
scrub's script, style, layout, then an animation frame).

What is asserted, and how:
- the work done: no drawing is asked of the server, the graph's nodes stay where they were laid out
  (no new layout) and, with a node selected, the inspector's title and the backward inspector stay
  the elements they were (only the iteration's values are written: inspector.js inspectIteration);
- the goal: the page's main thread CPU time per scrubbed frame (Chromium's ThreadTime, CDP
  Performance.getMetrics) <= 50 ms. CPU time, not wall time: at load 15-20 on 2 cores the renderer
  waits for a core as long as it runs, which wall time counts and CPU time does not. Measured
  ~2-6 ms a frame at load 2-8;
- and a generous bound on the in-page wall time (performance.now around each scrub and its frame),
  the median of nine <= 250 ms: what no machine short of a stall misses, printed with the CPU
  figures as where the time goes (script, style and layout, the frame after).
"""
import pytest

from tests.browser.conftest import painted
from tests.browser.test_training_scrub import run_mlp

pytestmark = pytest.mark.browser

# each scrub runs to its frame's paint
SCRUBS = """async n => {
    const frame = () => new Promise(done => requestAnimationFrame(() => setTimeout(done, 0)));
    const out = [];
    for (const k of [n - 1, 1, Math.floor(n / 2), 3, n - 2, 7, n - 10, 20, n - 1]) {
      const t0 = performance.now();
      window.dagscope.scrub(k);
      const t1 = performance.now();
      document.querySelector('#view-forward svg').getBoundingClientRect();     // style and layout
      document.querySelector('#inspector-forward').getBoundingClientRect();
      const t2 = performance.now();
      await frame();                                                           // painted
      out.push({script: t1 - t0, layout: t2 - t1, frame: performance.now() - t2, all: performance.now() - t0});
    }
    return out; }"""

NODE_PLACES = """() => [...document.querySelectorAll('#view-forward g.node')]
    .map(g => g.getAttribute('transform') + ' ' + g.getBoundingClientRect().x.toFixed(1))"""

METRICS = ("ThreadTime", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration", "TaskDuration")


def scrub_cost(page, n: int) -> tuple[list, dict]:
    """Nine scrubs, each to its paint: the in-page times (ms) and the main thread's metrics per scrub
    (ms). A drag is many redraws: measured after one pass over the slider (it brings the charts' and
    tables' code through the JIT), outside the readings."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("Performance.enable")
        read = lambda: {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}  # noqa: E731
        page.evaluate("""n => { for (let k = 0; k < n; k += 4) window.dagscope.scrub(k); }""", n)
        painted(page)
        before = read()
        times = page.evaluate(SCRUBS, n)
        after = read()
        cdp.send("Performance.disable")
    finally:
        cdp.detach()
    per = {k: (after[k] - before[k]) * 1000 / len(times) for k in METRICS if k in before}
    return times, per


def check(page, record, label: str, selected: bool):
    tr = record["graphs"][0]["trajectory"]
    renders = []
    page.on("request", lambda r: renders.append(r.url) if "/api/render" in r.url else None)
    places = page.evaluate(NODE_PLACES)
    if selected:
        page.evaluate("""() => { window.keptParts = [document.querySelector('#inspector-forward .inspector-title'),
                                                     document.querySelector('#inspector-backward').firstElementChild]; }""")
    times, per = scrub_cost(page, len(tr["iterations"]))
    walls = sorted(t["all"] for t in times)
    print(f"{label}: main thread per scrubbed frame, ms: " + ", ".join(f"{k} {v:.1f}" for k, v in per.items()))
    print(f"{label}: in-page ms (script / style+layout / frame): "
          + ", ".join(f"{t['script']:.1f}/{t['layout']:.1f}/{t['frame']:.1f}" for t in times))
    # values only: nothing laid out again, nothing drawn by the server
    assert renders == []
    assert page.evaluate(NODE_PLACES) == places
    if selected:
        assert page.evaluate("window.keptParts.every(e => e && e.isConnected)")
    assert page.evaluate("window.dagscope.state.iter") == len(tr["iterations"]) - 1
    # the goal, in the main thread's CPU time (see the module's docstring)
    assert per["ThreadTime"] <= 50, per
    assert walls[len(walls) // 2] <= 250, walls


def test_a_scrubbed_frame_costs_the_main_thread_at_most_50_ms(reused_page):
    page, record = run_mlp(reused_page, size=(1280, 720), present=True)
    check(page, record, "no selection", selected=False)
    bias = next(n for n in record["graphs"][0]["forward"]["nodes"] if n["label"] == "fc2.bias")
    page.evaluate("id => window.dagscope.selectNode(id)", bias["id"])
    check(page, record, "fc2.bias selected", selected=True)

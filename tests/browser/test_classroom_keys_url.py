"""Issue 17, items 1 and 3: the keyboard in the Step view and the tab strip (WAI-ARIA tabs), and the
URL that always describes what is shown — a share link or a typed address is not rewritten, and
reload, Back and Forward bring each view back exactly."""
from pathlib import Path

import pytest

from tests.browser.conftest import SEED, open_page, shot

pytestmark = pytest.mark.browser
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def run_code(page, code):
    page.evaluate("code => window.dagscope.setCode(code)", code)
    return page.evaluate("() => window.dagscope.run()")


def hash_of(page) -> str:
    return page.evaluate("location.hash")


def step_label(page) -> str:
    return page.inner_text("#stepper-controls .step-label")


def settled(page):
    page.wait_for_function("document.body.classList.contains('ready') && !window.dagscope.state.running"
                           " && window.dagscope.state.record")


# ---- item 1: keys ---------------------------------------------------------------------------------

def test_a_clicked_step_tab_steps_with_arrows_and_space_plays_once(page):
    open_page(page)
    run_code(page, SEED)
    page.click("[data-tab=step]")                          # the pointer: the Step view takes the focus
    page.wait_for_selector("#view-step-backward g.node.current")
    assert step_label(page) == "step 1 / 3"
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.dagscope.state.tab") == "step" and step_label(page) == "step 3 / 3"
    page.keyboard.press("ArrowLeft")
    assert step_label(page) == "step 2 / 3" and "step=2" in hash_of(page)
    # space on the focused Next button is the button's click: one step, and no playback
    page.focus("#stepper-controls [data-act=next]")
    page.keyboard.press("Space")
    assert step_label(page) == "step 3 / 3"
    assert page.evaluate("window.dagscope.state.step") == 2
    page.wait_for_timeout(50)
    assert not page.evaluate("document.querySelector('#stepper-controls .play path').getAttribute('d').startsWith('M4 3h3')")
    # space elsewhere in the view plays and pauses
    page.click("#step-detail")
    page.keyboard.press("Home")                            # no effect outside the tab strip
    page.evaluate("window.dagscope.step(0)")
    page.keyboard.press("Space")
    assert page.evaluate("document.querySelector('#stepper-controls .play path').getAttribute('d').startsWith('M4 3h3')")
    page.keyboard.press("Space")
    assert page.evaluate("document.querySelector('#stepper-controls .play path').getAttribute('d').startsWith('M4 3v10')")


def test_tab_strip_takes_arrows_only_while_it_has_the_focus(page):
    open_page(page)
    run_code(page, SEED)
    page.click("[data-tab=step]")
    tabs = page.eval_on_selector_all("[role=tab]", "els => els.map(e => [e.dataset.tab, e.tabIndex])")
    assert [t for t, i in tabs if i == 0] == ["step"] and all(i == -1 for t, i in tabs if t != "step")
    assert page.get_attribute("#tab-step", "aria-controls") == page.get_attribute("[data-panel=step]", "id")
    # Tab from the run button reaches the strip at its selected tab; arrows then move along it
    page.focus("#tab-step")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("[window.dagscope.state.tab, document.activeElement.dataset.tab]") == ["static", "static"]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert page.evaluate("document.activeElement.dataset.tab") == "backward"
    page.keyboard.press("End")
    assert page.evaluate("window.dagscope.state.tab") == "output"
    page.keyboard.press("Home")
    page.keyboard.press("ArrowLeft")                        # wraps round
    assert page.evaluate("window.dagscope.state.tab") == "output"
    # Enter on a focused tab keeps the focus in the strip
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.dagscope.state.tab") == "step"
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.dagscope.state.tab") == "static"   # the strip, not the stepper
    # the keyboard leaves the strip with Tab, into the Step view, whose keys then step
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("Tab")
    assert page.evaluate("!!document.activeElement.closest('[data-panel=step]')")
    page.keyboard.press("ArrowRight")
    assert page.evaluate("window.dagscope.state.tab") == "step" and step_label(page) == "step 2 / 3"


# ---- item 3: the URL ------------------------------------------------------------------------------

def test_typed_step_address_shows_that_step_and_is_kept(page):
    open_page(page, "/#tab=step&step=2")
    settled(page)
    page.wait_for_selector("#view-step-backward g.node.current")
    assert step_label(page) == "step 2 / 3"
    page.wait_for_timeout(100)
    assert page.evaluate("window.dagscope.state.tab") == "step" and "step=2" in hash_of(page)
    page.reload()
    settled(page)
    page.wait_for_function("document.querySelector('#stepper-controls .step-label').textContent === 'step 2 / 3'")
    assert "step=2" in hash_of(page)
    # an out-of-range step is shown clamped, and the address says which step that is
    page.goto(page.base + "/#tab=step&step=99")
    page.reload()
    settled(page)
    page.wait_for_function("location.hash.includes('step=3')")
    assert step_label(page) == "step 3 / 3"


def test_share_link_keeps_its_address_through_reload_and_back(page):
    open_page(page)
    run_code(page, SEED)
    page.evaluate("window.dagscope.step(1)")
    page.click("#share")
    page.wait_for_function("window.dagscope.lastShareUrl")
    url = page.evaluate("window.dagscope.lastShareUrl")
    assert url.endswith("#tab=step&g=g1&step=2")
    page.goto(url)
    settled(page)
    page.wait_for_selector("#view-step-backward g.node.current")
    assert step_label(page) == "step 2 / 3"
    assert page.evaluate("location.href") == url              # not rewritten to #tab=forward&g=g1
    page.reload()
    settled(page)
    page.wait_for_function("document.querySelector('#stepper-controls .step-label').textContent === 'step 2 / 3'")
    assert page.evaluate("location.href") == url
    page.keyboard.press("ArrowRight")                         # a move in the shared view is a new entry
    assert "step=3" in hash_of(page)
    page.go_back()
    page.wait_for_function("document.querySelector('#stepper-controls .step-label').textContent === 'step 2 / 3'")
    assert page.evaluate("location.href") == url


def test_back_forward_and_reload_restore_each_view(page):
    open_page(page)
    record = run_code(page, SEED)
    g = record["graphs"][0]
    mul = next(n for n in g["forward"]["nodes"] if n["op"] == "mul")
    bmul = next(n for n in g["backward"]["nodes"] if n["label"].startswith("MulBackward"))

    def now():
        return page.evaluate("""() => ({tab: window.dagscope.state.tab, node: window.dagscope.state.node,
            label: document.querySelector('#stepper-controls .step-label').textContent,
            walk: document.querySelector('[data-mode=forward]').getAttribute('aria-pressed'),
            sel: [...document.querySelectorAll('g.node.sel')].map(e => e.id).join(),
            hash: location.hash})""")

    # every move is one history entry: note the view after each
    moves = [lambda: page.click(f"#view-forward g.node[id='{mul['id']}']"),     # Forward, a node selected
             lambda: page.click("[data-tab=backward]"),
             lambda: page.click(f"#view-backward g.node[id='{bmul['id']}']"),   # Backward, its node selected
             lambda: page.click("[data-tab=step]"),
             lambda: page.keyboard.press("ArrowRight"),                         # Step 2 of the backprop
             lambda: page.click("[data-mode=forward]"),                         # the forward walk
             lambda: page.keyboard.press("ArrowRight")]                         # op 2
    moves += [lambda tab=tab: page.click(f"[data-tab={tab}]")
              for tab in ("static", "passes", "kernels", "memory", "charts", "output")]
    views = []
    for move in moves:
        move()
        views.append(now())
    assert [v["tab"] for v in views] == ["forward", "backward", "backward", "step", "step", "step", "step", "static",
                                         "passes", "kernels", "memory", "charts", "output"]
    assert views[0]["sel"] == mul["id"] and views[2]["node"] == f"b:{bmul['id']}" and views[2]["sel"] == bmul["id"]
    assert views[4]["label"] == "step 2 / 3" and views[6]["walk"] == "true" and "walk=forward" in views[6]["hash"]
    assert len({v["hash"] for v in views}) == len(views)

    def same(a, b):
        keys = ["tab", "node", "hash"] + (["label", "walk"] if a["tab"] == "step" else []) + (["sel"] if a["node"] else [])
        return {k: a[k] for k in keys} == {k: b[k] for k in keys}

    for want in reversed(views[:-1]):                          # Back, view by view
        page.go_back()
        page.wait_for_function("h => location.hash === h && !window.dagscope.state.running", arg=want["hash"])
        page.wait_for_timeout(30)
        assert same(now(), want), (now(), want)
    for want in views[1:]:                                     # and Forward again
        page.go_forward()
        page.wait_for_function("h => location.hash === h", arg=want["hash"])
        page.wait_for_timeout(30)
        assert same(now(), want), (now(), want)
    for want in [views[i] for i in (0, 2, 4, 6, 8, 12)]:      # reload (a fresh page runs the seed)
        page.goto(page.base + "/" + want["hash"])
        page.reload()
        settled(page)
        page.wait_for_function("h => location.hash === h", arg=want["hash"])
        page.wait_for_timeout(30)
        assert same(now(), want), (now(), want)
    shot(page, "url_restored_passes")


def test_a_compiled_example_restores_its_pass_on_reload(page):
    """Passes, through a share link (its graphs need the example's own code)."""
    open_page(page)
    run_code(page, (EXAMPLES / "11_compile_fusion.py").read_text())
    page.click("[data-tab=passes]")
    page.wait_for_selector("#panel-passes .pass-after g.node")
    page.click("#panel-passes .pass-head h3")
    page.keyboard.press("ArrowDown")
    active = page.inner_text(".pass-item.active")
    hash_pass = hash_of(page)
    n = int(active.split(".")[0])
    assert f"pass={n}" in hash_pass
    page.click("#share")
    page.wait_for_function("window.dagscope.lastShareUrl")
    url = page.evaluate("window.dagscope.lastShareUrl")
    page.goto(url)
    settled(page)
    page.wait_for_selector("#panel-passes .pass-item.active")
    assert page.inner_text(".pass-item.active") == active and page.evaluate("location.href") == url
    page.reload()
    settled(page)
    page.wait_for_selector("#panel-passes .pass-item.active")
    assert page.inner_text(".pass-item.active") == active and page.evaluate("location.href") == url
    # Back and Forward through passes, Kernels and Memory of that run
    page.click("#panel-passes .pass-head h3")
    page.keyboard.press("ArrowDown")
    page.wait_for_function("n => location.hash.includes('pass=' + n)", arg=n + 1)
    following = page.inner_text(".pass-item.active")
    assert following != active
    page.click("[data-tab=kernels]")
    page.click("[data-tab=memory]")
    page.go_back()
    page.wait_for_function("window.dagscope.state.tab === 'kernels'")
    page.go_back()
    page.wait_for_function("window.dagscope.state.tab === 'passes'")
    page.wait_for_function("t => document.querySelector('.pass-item.active')?.innerText === t", arg=following)
    page.go_back()
    page.wait_for_function("t => document.querySelector('.pass-item.active')?.innerText === t", arg=active)
    assert page.evaluate("location.href") == url
    page.go_forward()
    page.wait_for_function("t => document.querySelector('.pass-item.active')?.innerText === t", arg=following)
    assert f"pass={n + 1}" in hash_of(page)

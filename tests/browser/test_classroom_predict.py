"""Issue 17, item 5: Predict, then reveal — a guess within the stated tolerance (1%) is right, a
near one is "close" with which way it is off, a miss gets a hint (sign, scale) and the step's rule
worked through on the upstream gradient shown; in both languages."""
import pytest

from tests.browser.conftest import SEED, open_page, shot

pytestmark = pytest.mark.browser


def js(page, body):
    return page.evaluate(f"async () => {{ {body} }}")


def test_judging_a_guess(page):
    open_page(page)
    out = js(page, """const m = await import('/static/js/stepper.js');
        const j = (g, d) => m.judgeGuess(g, {data: d});
        return [j('0.47', 0.4684), j('0.4684', 0.4684), j('0.5', 0.4684), j('0.44', 0.4684), j('-0.4684', 0.4684),
                j('4.7', 0.4684), j('0.047', 0.4684), j('2.05, 1.9', [2, 2]), j('2, 2', [2, 4]), j('1, 2, 3', [2, 4]),
                j('0.0001, 2', [0, 2]), j('7', 0.4684), m.judgeGuess('1', {data: null}), m.guessMatches('0.47', {data: 0.4684}),
                m.ruleWithUpstream('grad_a = grad * b', {data: [1, 1]}), m.ruleWithUpstream('grad_x = grad_out * 2', {data: 3}),
                m.rulePart('grad_a = grad * b; grad_b = grad * a', 1, 2), m.rulePart('grad_a = grad * b; grad_b = grad * a', 0, 1)];""")
    assert out[0] == {"verdict": "right"} and out[1] == {"verdict": "right"}     # 0.47 vs 0.4684: 0.3% off
    assert out[2] == {"verdict": "close", "hint": "high"} and out[3] == {"verdict": "close", "hint": "low"}
    assert out[4] == {"verdict": "wrong", "hint": "sign"}
    assert out[5] == {"verdict": "wrong", "hint": "too_big", "factor": 10}
    assert out[6] == {"verdict": "wrong", "hint": "too_small", "factor": 10}
    assert out[7] == {"verdict": "close", "hint": "mixed"}
    assert out[8] == {"verdict": "wrong", "hint": None}
    assert out[9] == {"verdict": "wrong", "hint": "count", "n": 2}
    assert out[10] == {"verdict": "right"}
    assert out[11] == {"verdict": "wrong", "hint": "too_big", "factor": 15}
    assert out[12] is None and out[13] is True
    assert out[14] == "grad_a = [1., 1.] * b" and out[15] == "grad_x = grad_out * 2"
    assert out[16] == "grad_b = grad * a" and out[17] == "grad_a = grad * b; grad_b = grad * a"


def predict_at(page, i, guess):
    page.evaluate(f"window.dagscope.step({i})")
    page.fill("#step-detail .guess", guess)
    page.click("#step-detail .reveal")


def test_reveal_says_close_or_why_it_missed(page):
    open_page(page)
    page.evaluate("code => window.dagscope.setCode(code)", SEED)
    record = page.evaluate("() => window.dagscope.run()")
    steps = record["graphs"][0]["steps"]
    page.evaluate("window.dagscope.select('step')")
    page.wait_for_selector("#view-step-backward g.node.current")
    page.check(".predict-toggle")
    assert "within 1%" in page.inner_text("#step-detail .tolerance")
    predict_at(page, 0, "-1, -1")                                  # sum sends ones: the sign is wrong
    detail = page.inner_text("#step-detail")
    assert "✗ you guessed -1, -1" in detail and "right size, wrong sign" in detail
    assert "The rule on the upstream gradient:" in detail
    worked = page.inner_text("#step-detail .worked")
    assert steps[0]["rule"].split(" = ")[0] in worked and "1." in worked
    predict_at(page, 1, "2.05, 1.99")                              # x * 2: near enough to say so
    detail = page.inner_text("#step-detail")
    assert "≈ close: you guessed 2.05, 1.99" in detail and "some numbers a little high, some low" in detail
    assert "[1., 1.]" in page.inner_text("#step-detail .worked")  # the upstream written into the rule
    assert "= [2., 2.]" in page.inner_text("#step-detail .worked")
    shot(page, "predict_close")
    page.set_viewport_size({"width": 1280, "height": 720})
    page.click("#present")
    page.locator("#step-detail .worked").scroll_into_view_if_needed()
    shot(page, "present_1280_predict_close")
    page.select_option("#lang", "zh-CN")
    page.wait_for_function("document.querySelector('[data-tab=step]').textContent.includes('逐步')")
    page.evaluate("window.dagscope.step(1)")
    page.check(".predict-toggle")
    page.fill("#step-detail .guess", "2.01, 2")
    page.click("#step-detail .reveal")
    detail = page.inner_text("#step-detail")
    assert "✓ 正确" in detail and "误差在 1% 以内" in detail
    page.evaluate("window.dagscope.step(0)")
    page.fill("#step-detail .guess", "10")
    page.click("#step-detail .reveal")
    detail = page.inner_text("#step-detail")
    assert "大了约 10 倍" in detail and "把求导规则用到上游梯度上" in detail
    page.evaluate("window.dagscope.step(1)")
    shot(page, "zh-CN_present_1280_predict_right")

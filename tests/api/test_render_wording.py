"""Issue 17, item 7: every way a drawing fails carries its wording beside its English (app/responses.py
worded; busy and too slow already did): too large to draw, to send or to make together, too many
at once, not JSON, not a request the server draws, Graphviz stopped, missing, failing, drawing
less than asked or an SVG refused. Graphviz's and the system's own words are the `quote` parameter
(code in every language: static/js/i18n.js tMessageParts). The page showing them in 简体中文:
tests/browser/test_render_failures_zh.py."""
import re

import pytest

from app.routes import render as render_route
from app.services import render as render_service
from app.services.dot_process import DotFailed
from app.services.svg_clean import SvgRefused
from tests.api.test_api_wording import CATALOGS, assert_worded

PLACEHOLDER = re.compile(r"\{(\w+)\}")


def chain(n: int) -> dict:
    return {"nodes": [{"id": f"n{i}"} for i in range(n)], "edges": [{"src": f"n{i}", "dst": f"n{i + 1}"} for i in range(n - 1)]}


def test_a_drawing_refused_before_it_is_drawn_is_worded(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RENDER_MAX_NODES", "10")
    too_large = client.post("/api/render", json={"graph": chain(12)})
    assert too_large.status_code == 413
    assert_worded(too_large, "render_too_large")
    together = client.post("/api/render/batch", json={"drawings": [{"graph": chain(6)}, {"graph": chain(6)}]})
    assert together.status_code == 413
    assert_worded(together, "render_batch_too_large")
    monkeypatch.setattr(render_route, "MAX_GRAPH_NODES", 5)
    unsendable = client.post("/api/render", json={"graph": chain(8)})
    assert unsendable.status_code == 413
    assert_worded(unsendable, "render_too_large_to_send")
    monkeypatch.setattr(render_route, "MAX_BATCH_DRAWINGS", 2)
    many = client.post("/api/render/batch", json={"drawings": [{"graph": chain(1)}] * 3})
    assert many.status_code == 413
    assert_worded(many, "render_too_many_drawings")
    not_json = client.post("/api/render", content=b"{nope", headers={"Content-Type": "application/json"})
    assert not_json.status_code == 422
    assert_worded(not_json, "render_not_json")
    assert not_json.json()["detail_message"]["params"]["quote"] in not_json.json()["detail"]   # python's words, quoted


def test_a_request_the_server_does_not_draw_is_worded_beside_pydantic_s_errors(client):
    r = client.post("/api/render", json={"graph": {"nodes": [{"label": "no id"}, {"id": 3}]}})
    assert r.status_code == 422
    body = r.json()
    assert isinstance(body["detail"], list) and body["detail"][0]["loc"][0] == "body"      # as before
    message = body["detail_message"]
    assert message == {"key": "api.render_invalid", "params": {"n": len(body["detail"])}}
    assert all(message["key"] in c for c in CATALOGS.values())


@pytest.mark.parametrize("error, key", [
    (render_service._failure(DotFailed("killed", "Killed"), 40, render_service.Budget(0, 3, 256, 10, 10)), "render_killed"),
    (render_service._failure(DotFailed("missing", "Graphviz is not installed: `dot` was not found "
                                                  "(apt-get install graphviz)."), 40, None), "render_no_graphviz"),
    (render_service._failure(DotFailed("error", "syntax error in line 3"), 40, None), "render_dot_failed"),
    (render_service._refused(SvgRefused("a DOCTYPE with an internal subset")), "render_svg_refused"),
])
def test_graphviz_s_failures_are_worded_with_its_own_words_quoted(error, key):
    assert error.key == key
    assert CATALOGS["en"][f"api.{key}"].format(**error.params) == str(error)
    assert "quote" in error.params and error.params["quote"] in str(error)


def test_every_render_wording_is_in_both_languages_with_the_same_parameters():
    keys = [k for k in CATALOGS["en"] if k.startswith("api.render_")]
    assert len(keys) >= 14
    for key in keys:
        assert set(PLACEHOLDER.findall(CATALOGS["en"][key])) == set(PLACEHOLDER.findall(CATALOGS["zh-CN"][key])), key
    # each key the render service and route raise is in the catalogs
    import inspect
    used = set(re.findall(r'key="(render_\w+)"', inspect.getsource(render_service) + inspect.getsource(render_route)))
    used |= set(re.findall(r'"api\.(render_\w+)"', inspect.getsource(render_route)))
    assert used and {f"api.{k}" for k in used} <= set(keys)

"""The server's refusals the page shows carry their wording beside their English (app/responses.py
worded: `detail_message` {key, params} in static/i18n's api.*), which the English catalog words as
the detail says it, and 简体中文 has too (static/js/api.js shows it in the page's language)."""
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {lang: json.loads((ROOT / f"static/i18n/{lang}.json").read_text()) for lang in ("en", "zh-CN")}


def assert_worded(answer, key: str):
    body = answer.json()
    message = body["detail_message"]
    assert message["key"] == f"api.{key}" and all(message["key"] in c for c in CATALOGS.values())
    assert CATALOGS["en"][message["key"]].format(**message["params"]) == body["detail"]


def test_refusals_are_worded(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_MAX_CODE_BYTES", "50")
    too_long = client.post("/api/run", json={"code": "x = 1\n" * 20})
    assert too_long.status_code == 413
    assert_worded(too_long, "code_too_long")
    missing = client.get("/api/snippets/nosuchsnippet")
    assert missing.status_code == 404
    assert_worded(missing, "no_snippet")
    monkeypatch.setenv("DAGSCOPE_MAX_BODY_BYTES", "100")
    big = client.post("/api/snippets", content=json.dumps({"code": "y" * 500}), headers={"Content-Type": "application/json"})
    assert big.status_code == 413
    assert_worded(big, "body_too_large")


def test_the_token_and_the_rate_limit_are_worded(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", "worded-token")
    refused = client.post("/api/run", json={"code": "print(1)"})
    assert refused.status_code == 401
    assert_worded(refused, "token_needed")
    monkeypatch.delenv("DAGSCOPE_ACCESS_TOKEN")
    monkeypatch.setenv("DAGSCOPE_UNLIMITED_CLIENTS", "")
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_PER_MIN", "1")
    monkeypatch.setenv("DAGSCOPE_SNIPPET_RATE_BURST", "1")
    codes = [client.post("/api/snippets", json={"code": f"print({i})"}) for i in range(3)]
    assert codes[-1].status_code == 429
    assert_worded(codes[-1], "too_many_snippets")


def test_a_share_link_refused_is_worded(client):
    from app.services.snippets import MAX_STATE_BYTES
    big_state = client.post("/api/snippets", json={"code": "print(1)", "state": {"x": "s" * (MAX_STATE_BYTES + 1)}})
    assert big_state.status_code == 413
    assert_worded(big_state, "state_too_large")


def test_what_is_gone_and_the_onnx_refusals_are_worded(client):
    gone_file = client.get("/api/files/" + "f" * 32)
    assert gone_file.status_code == 404
    assert_worded(gone_file, "file_gone")
    gone_values = client.get("/api/runs/" + "r" * 24 + "/tensors/v1")
    assert gone_values.status_code == 404
    assert_worded(gone_values, "tensors_gone")
    for body, key in (({}, "onnx_no_file"), ({"data": "not base64!", "name": "m.onnx"}, "onnx_not_base64"),
                      ({"data": "", "name": "m.onnx"}, "onnx_empty"),
                      ({"file_id": "f" * 32, "name": "m.onnx"}, "file_gone")):
        answer = client.post("/api/onnx/open", json=body)
        assert answer.status_code in (404, 422), (key, answer.text)
        assert_worded(answer, key)
    from app.routes.onnx_import import MAX_FILE_BYTES
    import base64
    big = client.post("/api/onnx/open", json={"data": base64.b64encode(b"x" * (MAX_FILE_BYTES + 1)).decode(),
                                               "name": "m.onnx"})
    assert big.status_code == 413
    assert_worded(big, "onnx_too_large")
    no_run = client.post("/api/run/stop", json={"stop_key": "k" * 24})
    assert no_run.status_code == 404
    assert_worded(no_run, "no_run_to_stop")

"""deploy/compose.yaml and deploy/Caddyfile cannot run here (no Docker engine): their shape is
checked here, Caddy itself validates the proxy's file (Debian's caddy, which make test installs),
and tests/api/test_replicas.py runs the same Caddyfile outside a container in front of a replica."""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
DEPLOY = ROOT / "deploy"


def _compose() -> dict:
    return yaml.safe_load((DEPLOY / "compose.yaml").read_text())


def _seconds(text: str) -> float:
    return sum(float(n) * {"s": 1, "m": 60, "h": 3600}[unit] for n, unit in re.findall(r"([0-9.]+)([smh])", text))


def test_the_services_scale_and_check_their_health():
    services = _compose()["services"]
    assert set(services) == {"proxy", "app", "db"}
    app = services["app"]
    # `docker compose up --scale app=3`: no fixed host port or container name on the replicas
    assert "ports" not in app and "container_name" not in app
    assert "readyz" in " ".join(app["healthcheck"]["test"])
    assert services["proxy"]["depends_on"]["app"]["condition"] == "service_healthy"
    assert app["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in services["db"]["healthcheck"]["test"]
    # the drain (DAGSCOPE_DRAIN_TIMEOUT) ends before Docker's SIGKILL
    assert _seconds(app["stop_grace_period"]) > float(app["environment"]["DAGSCOPE_DRAIN_TIMEOUT"])
    assert "HEALTHCHECK" in (ROOT / "Dockerfile").read_text() and "/healthz" in (ROOT / "Dockerfile").read_text()


def test_postgres_keeps_its_data_in_a_volume():
    compose = _compose()
    mounts = compose["services"]["db"]["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in mounts and "pgdata" in compose["volumes"]


def test_no_secret_is_baked_in():
    compose = _compose()
    for name, service in compose["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if re.search(r"PASSWORD|TOKEN|SECRET|DATABASE_URL", key):
                assert "${" in str(value), f"{name}.{key} must come from the environment or .env, not the file"
    url = compose["services"]["app"]["environment"]["DAGSCOPE_DATABASE_URL"]
    assert url.startswith("postgresql://") and "${POSTGRES_PASSWORD:?" in url
    example = (DEPLOY / "env.example").read_text()
    assert re.search(r"^POSTGRES_PASSWORD=$", example, re.M)          # empty: the operator fills it in
    assert ".env" in (ROOT / ".gitignore").read_text().split()


def test_the_proxy_sets_timeouts_and_a_body_limit():
    caddyfile = (DEPLOY / "Caddyfile").read_text()
    for setting in ("read_header", "read_body", "write", "dial_timeout", "response_header_timeout"):
        assert re.search(rf"\b{setting}\s+\d+[sm]\b", caddyfile), setting
    assert re.search(r"max_size\s+8MB", caddyfile) and "respond /metrics 404" in caddyfile


@pytest.mark.skipif(shutil.which("caddy") is None, reason="Debian's caddy is not installed (make test installs it)")
def test_caddy_accepts_the_file(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run(["caddy", "validate", "--adapter", "caddyfile", "--config", str(DEPLOY / "Caddyfile")],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]

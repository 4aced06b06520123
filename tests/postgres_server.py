"""A throwaway PostgreSQL server for the tests and bench/load.py: Debian's `postgresql` package
(make test installs it), `initdb` into a temporary folder as an unprivileged user, listening on a
Unix socket in that folder only (no TCP port), with durability off (fsync, synchronous commit:
nothing here must survive a crash). `PostgresServer.start()` raises NotInstalled where the
package is missing (the tests skip, saying so) and Unavailable with the reason where the server
does not start (the tests fail: that is a defect to see)."""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from urllib.parse import quote

SUPERUSER = "dagscope"
DATABASE = "dagscope"


class Unavailable(RuntimeError):
    """PostgreSQL cannot be started here, and why."""


class NotInstalled(Unavailable):
    """Debian's postgresql package is not installed (the one reason the tests skip)."""


def _bindir() -> Path:
    found = shutil.which("pg_ctl")
    if found:
        return Path(os.path.realpath(found)).parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(p.split("/")[4]))
    if not versions:
        raise NotInstalled("PostgreSQL is not installed (Debian's `postgresql` package; `make test` installs it)")
    return Path(versions[-1]).parent


def _unprivileged_user() -> pwd.struct_passwd | None:
    """initdb and postgres refuse to run as root: as root, they run as `postgres` (the package's
    user) or `nobody`; as anyone else, as that user."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            return pwd.getpwnam(name)
        except KeyError:
            continue
    raise Unavailable("running as root, and neither a `postgres` nor a `nobody` user exists to run PostgreSQL")


# Run apart from the tests (its own session, so a Ctrl+C or a `timeout` that kills pytest does not
# reach it): waits for the test process to end, then stops its server and removes its folder.
# Without it a killed pytest leaves a PostgreSQL running, its session-scoped teardown never run.
_WATCHDOG = """
import os, select, shutil, subprocess, sys, time
owner, pg_ctl, data, folder, uid, gid = sys.argv[1:7]
try:
    select.select([os.pidfd_open(int(owner))], [], [])
except OSError:
    while True:
        try:
            os.kill(int(owner), 0)
        except ProcessLookupError:
            break
        time.sleep(1)
if os.path.exists(os.path.join(data, "postmaster.pid")):
    ids = {"user": int(uid), "group": int(gid), "extra_groups": []} if int(uid) >= 0 else {}
    subprocess.run([pg_ctl, "stop", "-w", "-m", "immediate", "-D", data], capture_output=True, timeout=60, cwd="/", **ids)
shutil.rmtree(folder, ignore_errors=True)
"""


class PostgresServer:
    def __init__(self):
        self.folder: Path | None = None
        self.url = ""
        self._watchdog: subprocess.Popen | None = None

    def _run(self, args: list, user, timeout: float = 60) -> subprocess.CompletedProcess:
        kwargs = {"user": user.pw_uid, "group": user.pw_gid, "extra_groups": []} if user else {}
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout, cwd="/", **kwargs)

    def start(self) -> str:
        bindir, user = _bindir(), _unprivileged_user()
        # short: a Unix socket's path must fit in 107 bytes
        self.folder = Path(tempfile.mkdtemp(prefix="dagscope-pg-"))
        data = self.folder / "data"
        if user:
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        os.chmod(self.folder, 0o700)
        done = self._run([bindir / "initdb", "-D", data, "-U", SUPERUSER, "--auth=trust", "-E", "UTF8",
                          "--no-sync", "--no-instructions"], user)
        if done.returncode != 0:
            self.stop()
            raise Unavailable(f"initdb failed: {done.stderr.strip()[-500:]}")
        options = (f"-k {self.folder} -c listen_addresses='' -c fsync=off -c synchronous_commit=off "
                   "-c full_page_writes=off -c max_connections=200 -c shared_buffers=32MB")
        done = self._run([bindir / "pg_ctl", "start", "-w", "-t", "60", "-D", data, "-l", self.folder / "log",
                          "-o", options], user, timeout=90)
        if done.returncode != 0:
            log = (self.folder / "log").read_text(errors="replace")[-800:] if (self.folder / "log").exists() else ""
            self.stop()
            raise Unavailable(f"PostgreSQL did not start: {done.stderr.strip()[-300:]} {log}")
        self._user = user
        ids = (str(user.pw_uid), str(user.pw_gid)) if user else ("-1", "-1")
        self._watchdog = subprocess.Popen(
            [sys.executable, "-c", _WATCHDOG, str(os.getpid()), str(bindir / "pg_ctl"), str(data), str(self.folder), *ids],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        base = f"postgresql://{SUPERUSER}@/postgres?host={quote(str(self.folder), safe='')}"
        import psycopg
        with psycopg.connect(base, autocommit=True) as conn:
            conn.execute(f"CREATE DATABASE {DATABASE}")
        self.url = f"postgresql://{SUPERUSER}@/{DATABASE}?host={quote(str(self.folder), safe='')}"
        return self.url

    def fresh_schema_url(self) -> str:
        """The server's URL with a new, empty schema first on the search path: a database of its
        own for one test, for the cost of a CREATE SCHEMA."""
        import psycopg
        schema = "t_" + uuid.uuid4().hex[:12]
        with psycopg.connect(self.url, autocommit=True) as conn:
            conn.execute(f"CREATE SCHEMA {schema}")
        return f"{self.url}&options={quote(f'-csearch_path={schema}', safe='')}"

    def stop(self) -> None:
        if self.folder is None:
            return
        data = self.folder / "data"
        if (data / "postmaster.pid").exists():
            self._run([_bindir() / "pg_ctl", "stop", "-w", "-m", "immediate", "-D", data],
                      getattr(self, "_user", _unprivileged_user()))
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None
        if self._watchdog is not None:            # nothing is left for it to clean
            self._watchdog.kill()
            self._watchdog.wait()
            self._watchdog = None

"""The resident planner behind ``jarvis plan``: real processes, a real Unix socket, the shipped
planner. What matters to a user: the answer is the same as planning in-process, a changed setting
or a dead planner never gives a wrong or missing answer, and nothing private crosses the socket."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REQUEST = "describe this photo and read it to me"


def jarvis(*args: str, env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "jarvis_desktop", "-v", *args], capture_output=True, text=True,
                          timeout=timeout, env=env)


def resident_pid(out: subprocess.CompletedProcess) -> int | None:
    m = re.search(r"plan from the resident planner \(pid (\d+)\)", out.stderr)
    return int(m.group(1)) if m else None


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a child of ours that exited stays a zombie until reaped; the planner is not our child
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def wait_gone(pid: int, timeout: float = 60) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.fixture
def env(jarvis_env, tmp_path):
    """The test's private folders with the resident planner on; every planner started is stopped."""
    e = dict(os.environ, JARVIS_RESIDENT_PLANNER_MINUTES="2")
    photo = tmp_path / "photo.png"
    from PIL import Image

    Image.new("RGB", (32, 32), "red").save(photo)
    e["PHOTO"] = str(photo)
    yield e
    for line in (tmp_path / "data" / "planner.log").read_text().splitlines() if (tmp_path / "data" / "planner.log").exists() else []:
        assert "Traceback" not in line, line
    for pid in _planners(tmp_path / "data"):
        os.kill(pid, signal.SIGTERM)


def _planners(data: Path) -> list[int]:
    """Resident planners serving this test's data folder (found by their command line and environment)."""
    out = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmd = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
        except OSError:
            continue
        if b"jarvis_desktop.resident" in cmd and f"JARVIS_DATA_DIR={data}".encode() in environ:
            out.append(int(proc.name))
    return out


def test_the_resident_planner_answers_as_planning_in_process_does(env, tmp_path):
    here = jarvis("plan", REQUEST, "-f", env["PHOTO"], env={**env, "JARVIS_RESIDENT_PLANNER_MINUTES": "0"})
    assert here.returncode == 0, here.stderr[-2000:]
    assert resident_pid(here) is None and not _planners(tmp_path / "data")

    first = jarvis("plan", REQUEST, "-f", env["PHOTO"], env=env)
    second = jarvis("plan", REQUEST, "-f", env["PHOTO"], env=env)
    for out in (first, second):
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout == here.stdout
        assert [t["task"] for t in json.loads(out.stdout)] == ["image-to-text", "text-to-speech"]
        assert "planner: offline planner" in out.stderr
    pid = resident_pid(first)
    assert pid is not None and resident_pid(second) == pid and alive(pid)

    sock = tmp_path / "data" / "planner.sock"
    assert stat.S_IMODE(sock.stat().st_mode) & 0o077 == 0  # only its user can connect

    missing = jarvis("plan", "describe it", "-f", str(tmp_path / "gone.jpg"), env=env)
    assert missing.returncode == 1 and "gone.jpg: file not found" in missing.stderr


def test_a_changed_setting_retires_the_resident_planner(env, tmp_path):
    first = jarvis("plan", REQUEST, "-f", env["PHOTO"], env=env)
    old = resident_pid(first)
    assert old is not None
    (tmp_path / "config" / "settings.toml").write_text('candidates = 3\n')  # an edited settings file
    second = jarvis("plan", REQUEST, "-f", env["PHOTO"], env=env)
    new = resident_pid(second)
    assert second.returncode == 0 and second.stdout == first.stdout
    assert new is not None and new != old, second.stderr[-3000:]
    assert wait_gone(old), "the planner with the old settings stayed"


def test_a_killed_resident_planner_is_replaced(env, tmp_path):
    old = resident_pid(jarvis("plan", REQUEST, env=env))
    assert old is not None
    os.kill(old, signal.SIGKILL)
    assert wait_gone(old)
    assert (tmp_path / "data" / "planner.sock").exists()  # left behind, as after a crash
    again = jarvis("plan", REQUEST, "-f", env["PHOTO"], env=env)
    assert again.returncode == 0, again.stderr[-2000:]
    new = resident_pid(again)
    assert new is not None and new != old, again.stderr[-3000:]


def test_callers_at_once_share_one_resident_planner(env, tmp_path):
    procs = [subprocess.Popen([sys.executable, "-m", "jarvis_desktop", "-v", "plan", REQUEST, "-f", env["PHOTO"]],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outs = [p.communicate(timeout=300) for p in procs]
    pids = {resident_pid(subprocess.CompletedProcess([], 0, o, e)) for o, e in outs}
    assert all(p.returncode == 0 for p in procs), [e[-1500:] for _, e in outs]
    assert len({o for o, _ in outs}) == 1
    assert len(pids) == 1 and None not in pids
    deadline = time.monotonic() + 60  # the others started by the rush see that one serves, and leave
    while [p for p in _planners(tmp_path / "data") if alive(p)] != list(pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [p for p in _planners(tmp_path / "data") if alive(p)] == list(pids)


def test_the_resident_planner_leaves_when_idle(env, tmp_path):
    proc = subprocess.Popen([sys.executable, "-m", "jarvis_desktop.resident", "--idle-minutes", "0.02"], env=env)
    assert proc.wait(timeout=120) == 0
    assert not (tmp_path / "data" / "planner.sock").exists()


def test_a_planner_that_hangs_up_leaves_the_command_to_plan_itself_and_sees_no_secret(env, tmp_path):
    """A fake resident planner (a bare socket) records what a caller sends and hangs up."""
    env = {**env, "OPENAI_API_KEY": "sk-test-do-not-share-4242", "JARVIS_PLANNER": "offline"}
    path = tmp_path / "data" / "planner.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)
    received: list[bytes] = []
    done = threading.Event()

    def hang_up() -> None:
        server.settimeout(0.1)  # wakes often to see whether the test is over: no thread outlives it
        while not done.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            with conn:
                conn.settimeout(10)
                received.append(b"".join(iter(lambda: conn.recv(65536), b"")))

    t = threading.Thread(target=hang_up, daemon=True)
    t.start()
    try:
        out = jarvis("plan", REQUEST, "-f", env["PHOTO"], env={**env, "JARVIS_RESIDENT_PLANNER_MINUTES": "0.05"})
    finally:
        done.set()
        t.join(timeout=30)
        server.close()
    assert not t.is_alive()
    assert out.returncode == 0, out.stderr[-2000:]
    assert [t["task"] for t in json.loads(out.stdout)] == ["image-to-text", "text-to-speech"]
    assert resident_pid(out) is None
    sent = [json.loads(r) for r in received if r]
    assert sent and sent[0]["request"] == REQUEST and sent[0]["files"] == [[str(Path(env["PHOTO"]).resolve()), "image"]]
    assert not any(b"sk-test-do-not-share" in r for r in received)


def test_a_planner_that_dies_mid_request_is_replaced(env, tmp_path):
    """A fake resident planner takes the request and goes away without reading it (the caller sees
    its connection reset, as when a planner is killed mid-request): a fresh one answers."""
    path = tmp_path / "data" / "planner.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(4)

    def die_mid_request() -> None:
        server.settimeout(60)
        conn, _ = server.accept()
        conn.recv(1, socket.MSG_PEEK)  # the request has arrived, unread
        conn.close()
        server.close()  # the socket file stays behind, as after a crash

    t = threading.Thread(target=die_mid_request, daemon=True)
    t.start()
    out = jarvis("plan", REQUEST, "-f", env["PHOTO"], env=env)
    t.join(timeout=30)
    assert out.returncode == 0, out.stderr[-2000:]
    assert [t["task"] for t in json.loads(out.stdout)] == ["image-to-text", "text-to-speech"]
    assert resident_pid(out) is not None, out.stderr[-2000:]

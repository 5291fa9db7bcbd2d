"""The ``jarvis`` command line, run as a real subprocess against a private data folder."""

import json
import subprocess
import sys

import pytest


def jarvis(*args, timeout=300):
    return subprocess.run([sys.executable, "-m", "jarvis_desktop", *args], capture_output=True, text=True, timeout=timeout)


def test_version_and_help():
    out = jarvis("--version")
    assert out.returncode == 0 and "jarvis-desktop" in out.stdout
    out = jarvis("--help")
    for cmd in ("ask", "chat", "plan", "models", "sessions", "doctor", "listen"):
        assert cmd in out.stdout


def test_plan_prints_validated_json(jarvis_env, tmp_path):
    img = tmp_path / "photo.png"
    from PIL import Image

    Image.new("RGB", (64, 32), "white").save(img)
    out = jarvis("plan", "What text is written in photo.png?", "--file", str(img))
    assert out.returncode == 0, out.stderr[-1500:]
    plan = json.loads(out.stdout)
    assert plan and plan[0]["task"] == "image-to-text" and plan[0]["args"]["image"] == str(img.resolve())
    assert "planner:" in out.stderr


def test_plan_with_a_missing_file_is_a_clear_error(jarvis_env, tmp_path):
    out = jarvis("plan", "describe it", "--file", str(tmp_path / "gone.jpg"))
    assert out.returncode == 1 and "gone.jpg: file not found" in out.stderr
    assert "Traceback" not in out.stderr


def test_sessions_show_export_delete(jarvis_env, tmp_path):
    from jarvis_desktop.config import load_settings
    from jarvis_desktop.store.sessions import SessionStore

    store = SessionStore(load_settings().db_path)
    sid = store.new_session("weather")
    store.add_message(sid, "user", "will it rain in Lisbon")
    store.add_message(sid, "assistant", "No rain is forecast.")
    store.close()
    listed = jarvis("sessions", "list", "-q", "Lisbon")
    assert sid in listed.stdout
    shown = jarvis("sessions", "show", sid)
    assert "No rain is forecast." in shown.stdout
    target = tmp_path / "s.json"
    assert jarvis("sessions", "export", sid, "-o", str(target)).returncode == 0
    assert json.loads(target.read_text())["messages"][0]["text"] == "will it rain in Lisbon"
    assert jarvis("sessions", "show", "nope").returncode == 1
    assert jarvis("sessions", "delete", sid).returncode == 0
    assert sid not in jarvis("sessions", "list").stdout


def test_doctor_reports_runnable_task_types(jarvis_env):
    out = jarvis("doctor", "--no-controller")
    assert out.returncode == 0, out.stderr[-1500:]
    assert "automatic-speech-recognition" in out.stdout and "Systran/faster-whisper-tiny.en" in out.stdout
    assert "task types run offline now" in out.stdout


def test_bad_settings_file_is_one_line(jarvis_env):
    (jarvis_env / "config" / "settings.toml").write_text('inference_mode = "nowhere"\n')
    out = jarvis("sessions", "list")
    assert out.returncode == 2 and "inference_mode must be one of" in out.stderr and "Traceback" not in out.stderr


def test_models_list_and_offline_pull(jarvis_env):
    out = jarvis("models", "list")
    assert out.returncode == 0
    assert "automatic-speech-recognition" in out.stdout and "0 models" in out.stdout
    out = jarvis("models", "pull", "facebook/detr-resnet-50")
    assert out.returncode == 1 and "Offline mode is on" in out.stderr and "Traceback" not in out.stderr
    out = jarvis("models", "defaults", "object-detection")
    assert "object-detection" in out.stdout and "total download" in out.stdout
    assert out.returncode == 1  # not confirmed (no terminal): nothing downloaded


def test_plan_naming_a_file_that_is_neither_given_nor_here_says_which(jarvis_env, tmp_path):
    out = subprocess.run([sys.executable, "-m", "jarvis_desktop", "plan", "transcribe talk.mp3 and translate it into German"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 1 and json.loads(out.stdout) == []
    assert "needs talk.mp3, which was not attached" in out.stderr


def test_a_file_named_in_the_request_and_found_here_is_attached(jarvis_env, tmp_path):
    """In a terminal, naming a file in the folder is how people give it: `jarvis plan "what
    text is written in photo.png"` next to photo.png reads that photo."""
    from PIL import Image

    Image.new("RGB", (64, 32), "white").save(tmp_path / "photo.png")
    out = subprocess.run([sys.executable, "-m", "jarvis_desktop", "plan", "What text is written in photo.png?"],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert out.returncode == 0, out.stderr[-1500:]
    plan = json.loads(out.stdout)
    assert plan[0]["task"] == "image-to-text" and plan[0]["args"]["image"] == str((tmp_path / "photo.png").resolve())
    assert "attached photo.png (named in the request)" in out.stderr


def test_plan_says_why_a_plan_is_empty_or_shorter_than_asked(jarvis_env, tmp_path):
    out = jarvis("plan", "tell me a joke about penguins")
    assert out.returncode == 0 and json.loads(out.stdout) == []
    assert "note: no task an expert can do was found in the request; it will be answered as chat" in out.stderr
    out = jarvis("plan", "caption this and read it aloud")
    assert "note: skipped image-to-text: it needs image input and none was given" in out.stderr

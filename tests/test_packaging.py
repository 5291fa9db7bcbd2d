"""Packaging: the wheel and sdist carry resources/ and install into a fresh venv that works from
outside the checkout; the desktop entry validates and installs per user; the PyInstaller bundle
(slow, opt-in) starts and runs the shipped experts.

The fresh venv gets only the built wheel (``--no-deps``); its dependencies come from this
project's venv through a ``.pth`` path line, so nothing is downloaded and no copy of the checkout
is importable: what runs is what the wheel holds.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tarfile
import time
import xml.etree.ElementTree as ET
import zipfile
from pathlib import Path

import pytest

from jarvis_desktop import __version__

ROOT = Path(__file__).resolve().parent.parent
VENV_SITE = Path(sysconfig.get_paths()["purelib"])
ARTIFACTS = ROOT / "test-artifacts"


def _env(root: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JARVIS_", "PYTHON", "VIRTUAL_ENV"))}
    for name in ("config", "data", "model_cache"):
        (root / name).mkdir(parents=True, exist_ok=True)
    env.update(JARVIS_CONFIG_DIR=str(root / "config"), JARVIS_DATA_DIR=str(root / "data"),
               JARVIS_MODEL_CACHE=str(root / "model_cache"), JARVIS_OFFLINE="1", HF_HUB_OFFLINE="1",
               JARVIS_RESIDENT_PLANNER_MINUTES="0", **extra)  # no planner left running after the test
    return env


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, Path]:
    """A wheel and an sdist built from this checkout (no isolation: no downloads)."""
    out = tmp_path_factory.mktemp("dist")
    r = subprocess.run([sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(ROOT)],
                       capture_output=True, text=True, timeout=600)
    assert "No module named build" not in r.stderr, "the 'build' package is missing: make setup installs it (test extra)"
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = out.glob("*.whl")
    (sdist,) = out.glob("*.tar.gz")
    return {"wheel": wheel, "sdist": sdist}


@pytest.fixture(scope="module")
def fresh_venv(dists, tmp_path_factory) -> Path:
    """A new venv holding only the wheel; dependencies are borrowed from this venv."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    r = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
                        "--quiet", str(dists["wheel"])], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    site = Path(subprocess.check_output([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                                        text=True).strip())
    (site / "zz_borrowed_dependencies.pth").write_text(f"{VENV_SITE}\n")
    return venv


def _run(venv: Path, args: list[str], cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run([str(venv / "bin" / args[0])] + args[1:], cwd=cwd, env=_env(cwd), capture_output=True,
                          text=True, timeout=timeout)


def test_wheel_and_sdist_carry_the_resources(dists):
    names = set(zipfile.ZipFile(dists["wheel"]).namelist())
    shipped = {p.relative_to(ROOT / "resources").as_posix() for p in (ROOT / "resources").rglob("*")
               if p.is_file() and "__pycache__" not in p.parts}
    missing = {s for s in shipped if f"jarvis_desktop/resources/{s}" not in names}
    assert not missing, f"resources missing from the wheel: {sorted(missing)}"
    for needed in ("catalog/models.jsonl", "prompts/plan_system.md", "icons/jarvis.svg", "jarvis-desktop.desktop"):
        assert f"jarvis_desktop/resources/{needed}" in names
    assert not [n for n in names if n.startswith(("tests/", "model_cache/", "resources/")) or "__pycache__" in n]
    entry_points = next(n for n in names if n.endswith("entry_points.txt"))
    assert "jarvis = jarvis_desktop.cli:main" in zipfile.ZipFile(dists["wheel"]).read(entry_points).decode()
    with tarfile.open(dists["sdist"]) as tar:
        members = {m.name.split("/", 1)[1] for m in tar.getmembers() if "/" in m.name}
    for needed in ("pyproject.toml", "setup.py", "resources/catalog/models.jsonl", "resources/icons/jarvis-256.png",
                   "jarvis_desktop/cli.py"):
        assert needed in members, needed


def test_wheel_installs_and_runs_from_a_fresh_venv(fresh_venv, tmp_path):
    version = _run(fresh_venv, ["jarvis", "--version"], tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"jarvis-desktop {__version__}"

    probe = _run(fresh_venv, ["python", "-c", (
        "import json, jarvis_desktop\n"
        "from jarvis_desktop.config import load_settings, resources_dir\n"
        "from jarvis_desktop.experts.catalog import load_catalog\n"
        "r = resources_dir()\n"
        "cat = load_catalog(load_settings())\n"
        "print(json.dumps({'package': jarvis_desktop.__file__, 'resources': str(r), 'catalog': len(cat.models),\n"
        "  'catalog_file': str(cat.source), 'prompt': len((r / 'prompts' / 'plan_system.md').read_text())}))"
    )], tmp_path)
    assert probe.returncode == 0, probe.stderr[-3000:]
    found = json.loads(probe.stdout.strip().splitlines()[-1])
    assert Path(found["package"]).is_relative_to(fresh_venv), found  # the wheel's copy, not the checkout
    assert Path(found["resources"]) == Path(found["package"]).parent / "resources"
    assert found["catalog"] > 0 and found["prompt"] > 0
    assert Path(found["catalog_file"]).is_relative_to(found["resources"])

    doctor = _run(fresh_venv, ["jarvis", "doctor", "--no-controller"], tmp_path)
    assert doctor.returncode == 0, doctor.stdout[-2000:] + doctor.stderr[-2000:]
    assert "task types run offline now" in doctor.stdout
    assert "Systran/faster-whisper-tiny.en" in doctor.stdout  # a shipped model was found

    # The desktop entry and icons ship in the wheel, and the entry starts this installation.
    xdg = tmp_path / "xdg"
    entry = subprocess.run([str(fresh_venv / "bin" / "jarvis"), "install-desktop-entry"], cwd=tmp_path,
                           env=_env(tmp_path, XDG_DATA_HOME=str(xdg)), capture_output=True, text=True, timeout=120)
    assert entry.returncode == 0, entry.stderr
    text = (xdg / "applications" / "jarvis-desktop.desktop").read_text()
    assert f"Exec={fresh_venv / 'bin' / 'jarvis'} gui" in text
    assert (xdg / "icons/hicolor/256x256/apps/jarvis-desktop.png").is_file()


def test_installed_wheel_plans_offline(fresh_venv, tmp_path):
    """The offline planner reads resources/planner from an installed wheel too."""
    wav = tmp_path / "talk.wav"
    assert shutil.which("espeak-ng"), "espeak-ng is missing: make setup installs it (make system-deps)"
    subprocess.run(["espeak-ng", "-w", str(wav), "good morning"], check=True)
    r = _run(fresh_venv, ["jarvis", "plan", "transcribe this recording", "-f", str(wav)], tmp_path)
    assert r.returncode == 0, r.stderr[-3000:]
    assert "automatic-speech-recognition" in r.stdout


# -- the desktop entry -------------------------------------------------------------------------

@pytest.fixture
def validator() -> str:
    tool = shutil.which("desktop-file-validate")
    assert tool, "desktop-file-validate is missing: make setup installs desktop-file-utils (make system-deps)"
    return tool


def test_shipped_desktop_file_validates(validator):
    r = subprocess.run([validator, str(ROOT / "resources" / "jarvis-desktop.desktop")], capture_output=True, text=True)
    assert r.returncode == 0 and not r.stdout.strip(), r.stdout + r.stderr


def test_icons_are_the_declared_sizes():
    from PIL import Image

    icons = ROOT / "resources" / "icons"
    for size in (48, 128, 256):
        with Image.open(icons / f"jarvis-{size}.png") as im:
            assert im.size == (size, size) and im.mode == "RGBA"
            assert im.getpixel((0, 0))[3] == 0 and im.getpixel((size // 2, size // 2))[3] == 255  # rounded, opaque
    svg = ET.parse(icons / "jarvis.svg").getroot()
    assert svg.tag.endswith("svg") and svg.get("viewBox") == "0 0 256 256"


def test_install_and_uninstall_desktop_entry(validator, tmp_path):
    data_home = tmp_path / "xdg-data"
    env = _env(tmp_path, XDG_DATA_HOME=str(data_home), HOME=str(tmp_path / "home"))
    jarvis = [sys.executable, "-m", "jarvis_desktop"]
    r = subprocess.run(jarvis + ["install-desktop-entry"], env=env, cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    desktop = data_home / "applications" / "jarvis-desktop.desktop"
    icons = [data_home / "icons/hicolor/scalable/apps/jarvis-desktop.svg"] + [
        data_home / f"icons/hicolor/{n}x{n}/apps/jarvis-desktop.png" for n in (48, 128, 256)]
    assert desktop.is_file() and all(p.is_file() for p in icons)
    assert not (tmp_path / "home").exists()  # XDG_DATA_HOME was respected
    v = subprocess.run([validator, str(desktop)], capture_output=True, text=True)
    assert v.returncode == 0 and not v.stdout.strip(), v.stdout + v.stderr
    fields = dict(line.split("=", 1) for line in desktop.read_text().splitlines() if "=" in line)
    executable = fields["TryExec"]
    assert Path(executable).is_absolute() and os.access(executable, os.X_OK)
    assert fields["Exec"].endswith(" gui") and fields["Icon"] == "jarvis-desktop"
    started = subprocess.run(fields["Exec"].removesuffix(" gui").split() + ["--version"], env=env,
                             capture_output=True, text=True, timeout=120)
    assert started.stdout.strip() == f"jarvis-desktop {__version__}"

    r = subprocess.run(jarvis + ["uninstall-desktop-entry"], env=env, cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert not desktop.exists() and not any(p.exists() for p in icons)


# -- the PyInstaller bundle --------------------------------------------------------------------

@pytest.mark.package
@pytest.mark.timeout(3600)
@pytest.mark.skipif(os.environ.get("JARVIS_TEST_PACKAGE") != "1",
                    reason="builds the PyInstaller bundle (6-12 min on 2 cores, 2.35 GB): set JARVIS_TEST_PACKAGE=1 to run it")
def test_pyinstaller_bundle_builds_and_runs(tmp_path):
    """The bundle starts, finds its resources and the shipped models, answers, and shows its window."""
    pyinstaller = Path(sys.executable).parent / "pyinstaller"
    assert pyinstaller.exists(), "PyInstaller is missing: make package installs it (the package extra)"
    dist, work = tmp_path / "dist", tmp_path / "work"
    t0 = time.perf_counter()
    r = subprocess.run([str(pyinstaller), "--noconfirm", "--distpath", str(dist), "--workpath", str(work),
                        str(ROOT / "packaging" / "jarvis.spec")], capture_output=True, text=True, timeout=3500)
    build_seconds = time.perf_counter() - t0
    assert r.returncode == 0, r.stderr[-4000:]
    bundle = dist / "jarvis"
    exe = bundle / "jarvis"
    size = sum(p.stat().st_size for p in bundle.rglob("*") if p.is_file() and not p.is_symlink())
    internal = bundle / "_internal"
    assert (internal / "resources" / "catalog" / "models.jsonl").is_file()
    assert (internal / "resources" / "icons" / "jarvis-256.png").is_file()
    assert not list(bundle.rglob("model_cache"))  # models stay out of the bundle

    run_dir = tmp_path / "run"
    env = _env(run_dir)
    version = subprocess.run([str(exe), "--version"], env=env, cwd=run_dir, capture_output=True, text=True, timeout=120)
    assert version.stdout.strip() == f"jarvis-desktop {__version__}", version.stderr
    doctor = subprocess.run([str(exe), "doctor", "--no-controller"], env=env, cwd=run_dir, capture_output=True,
                            text=True, timeout=300)
    assert doctor.returncode == 0, doctor.stderr[-3000:]
    assert "Systran/faster-whisper-tiny.en" in doctor.stdout
    for request, task in (('convert this text to speech: "good morning"', "text-to-speech"),
                          ('find the named entities in "Ada Lovelace lived in London"', "token-classification")):
        ask = subprocess.run([str(exe), "ask", request, "--json"], env=env, cwd=run_dir, capture_output=True,
                             text=True, timeout=600)
        assert ask.returncode == 0, ask.stdout[-2000:] + ask.stderr[-3000:]
        d = json.loads(ask.stdout)
        assert [t["task"] for t in d["plan"]] == [task]
        assert all(x["status"] == "done" for x in d["results"].values()), d["results"]

    if importlib.util.find_spec("PySide6") is not None:  # the ui extra is installed, so the bundle has the window
        assert (internal / "PySide6").is_dir()
        gui = subprocess.run([str(exe), "gui"], env={**env, "QT_QPA_PLATFORM": "offscreen", "JARVIS_STARTUP_PROBE": "1"},
                             cwd=run_dir, capture_output=True, text=True, timeout=300)
        assert gui.returncode == 0, gui.stderr[-3000:]
        assert "JARVIS_SHOWN" in gui.stdout and "JARVIS_READY" in gui.stdout, gui.stdout + gui.stderr[-3000:]

    report = {"build_seconds": round(build_seconds, 1), "bundle_bytes": size, "bundle_gb": round(size / 1e9, 2)}
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "pyinstaller_bundle.json").write_text(json.dumps(report, indent=2))
    print(f"\nPyInstaller bundle: built in {build_seconds:.0f} s, {size / 1e9:.2f} GB")

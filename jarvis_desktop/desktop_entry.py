"""``jarvis install-desktop-entry`` / ``uninstall-desktop-entry``: put JARVIS in the Linux app menu.

Per-user and by the XDG rules: the ``.desktop`` file goes to ``$XDG_DATA_HOME/applications`` and
the icons to ``$XDG_DATA_HOME/icons/hicolor/<size>/apps`` (``XDG_DATA_HOME`` defaults to
``~/.local/share``). The entry's ``Exec`` names the absolute path of the ``jarvis`` that ran the
command, because menus do not see a virtual environment's ``PATH``.
"""

from __future__ import annotations

import argparse
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

from .config import resources_dir

APP_ID = "jarvis-desktop"
DESKTOP_FILE = f"{APP_ID}.desktop"
PNG_SIZES = (48, 128, 256)


def data_home() -> Path:
    value = os.environ.get("XDG_DATA_HOME", "")
    # The spec: a relative path is invalid and must be ignored.
    return Path(value) if value and os.path.isabs(value) else Path.home() / ".local" / "share"


def installed_paths(base: Path | None = None) -> list[Path]:
    """Every file the install writes (the uninstall removes exactly these)."""
    base = base or data_home()
    icons = base / "icons" / "hicolor"
    return ([base / "applications" / DESKTOP_FILE, icons / "scalable" / "apps" / f"{APP_ID}.svg"]
            + [icons / f"{n}x{n}" / "apps" / f"{APP_ID}.png" for n in PNG_SIZES])


def launcher_command() -> list[str]:
    """How the menu should start this installation: the bundle's executable, the ``jarvis`` script
    beside this Python, or ``python -m jarvis_desktop``."""
    if getattr(sys, "frozen", False):
        return [str(Path(sys.executable).resolve())]
    script = Path(sys.executable).parent / "jarvis"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script)]
    found = shutil.which("jarvis")
    if found:
        return [str(Path(found).resolve())]
    return [str(Path(sys.executable).resolve()), "-m", "jarvis_desktop"]


def _exec_quote(arg: str) -> str:
    """Quoting of the Desktop Entry spec's Exec key (double quotes; \\ " ` $ escaped)."""
    if arg and not any(c in arg for c in ' \t\n"\'\\><~|&;$*?#()`'):
        return arg
    return '"' + "".join("\\" + c if c in '"`$\\' else c for c in arg) + '"'


def entry_text(command: list[str]) -> str:
    """The shipped ``.desktop`` file with ``Exec``/``TryExec`` pointing at ``command``."""
    template = (resources_dir() / DESKTOP_FILE).read_text(encoding="utf-8")
    exec_line = " ".join(_exec_quote(a) for a in command + ["gui"])
    # %-signs are field codes in Exec; a literal one is written %%.
    exec_line = exec_line.replace("%", "%%")
    lines = []
    for line in template.splitlines():
        if line.startswith("Exec="):
            line = f"Exec={exec_line}"
        elif line.startswith("TryExec="):
            line = f"TryExec={command[0]}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def _refresh_caches(base: Path) -> None:
    """Refresh the menu and icon caches that already exist in the user's folder. None is created:
    a user-level icon cache that later goes stale would hide other apps' icons."""
    apps, icons = base / "applications", base / "icons" / "hicolor"
    for cache, cmd in ((apps / "mimeinfo.cache", ["update-desktop-database", "-q", str(apps)]),
                       (icons / "icon-theme.cache", ["gtk-update-icon-cache", "-q", "-t", str(icons)])):
        if cache.exists() and shutil.which(cmd[0]):
            subprocess.run(cmd, check=False, capture_output=True, timeout=30)


def install(base: Path | None = None, command: list[str] | None = None) -> list[Path]:
    base = base or data_home()
    icons = resources_dir() / "icons"
    desktop, svg, *pngs = installed_paths(base)
    for path in installed_paths(base):
        path.parent.mkdir(parents=True, exist_ok=True)
    desktop.write_text(entry_text(command or launcher_command()), encoding="utf-8")
    desktop.chmod(0o755)  # some file managers trust only executable launchers
    shutil.copyfile(icons / "jarvis.svg", svg)
    for size, target in zip(PNG_SIZES, pngs):
        shutil.copyfile(icons / f"jarvis-{size}.png", target)
    _refresh_caches(base)
    return [desktop, svg, *pngs]


def uninstall(base: Path | None = None) -> list[Path]:
    base = base or data_home()
    removed = []
    for path in installed_paths(base):
        if path.is_file() or path.is_symlink():
            path.unlink()
            removed.append(path)
    _refresh_caches(base)
    return removed


def cmd_install(args: argparse.Namespace) -> int:
    try:
        paths = install()
    except OSError as e:
        print(f"jarvis: could not install the desktop entry: {e}", file=sys.stderr)
        return 1
    print(f"Installed JARVIS in the app menu: {paths[0]}")
    for p in paths[1:]:
        print(f"  icon: {p}")
    print(f"It starts: {' '.join(shlex.quote(a) for a in launcher_command())} gui")
    return 0


def cmd_uninstall(args: argparse.Namespace) -> int:
    removed = uninstall()
    if not removed:
        print("No JARVIS desktop entry was installed for this user.")
        return 0
    for p in removed:
        print(f"removed {p}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("install-desktop-entry", help="add JARVIS to this user's app menu (Linux)")
    p.set_defaults(fn=cmd_install)
    u = sub.add_parser("uninstall-desktop-entry", help="remove JARVIS from this user's app menu")
    u.set_defaults(fn=cmd_uninstall)

"""Entry point of the PyInstaller bundle: the same ``jarvis`` command as the installed script."""

from jarvis_desktop.cli import main

if __name__ == "__main__":
    raise SystemExit(main())

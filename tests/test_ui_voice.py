"""The microphone button and Ctrl+Space: hold to talk, the level meter moves, release and the
words become a request. The sound card is the one thing that cannot exist here: a file-backed
input stream stands in for it (it plays a real espeak-ng recording through the real Microphone,
and the real Whisper model transcribes it)."""

from __future__ import annotations

import threading
import time

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("sounddevice")

from PySide6.QtCore import Qt  # noqa: E402

from test_ui_support import SPOKEN, close_window, espeak_wav, make_settings, python_threads  # noqa: E402


class FileInputStreamStandIn:
    """Stands in for sounddevice.InputStream: delivers a recording's samples, then silence, to the
    callback from its own thread (like PortAudio), until stopped."""

    def __init__(self, samples, *, samplerate, channels, dtype, device, blocksize, callback, finished_callback):
        self.samples, self.blocksize = samples, blocksize
        self.callback, self.finished_callback = callback, finished_callback
        self.delivered = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="stand-in-sound-card", daemon=True)

    def start(self):
        self._thread.start()

    def _run(self):
        import numpy as np

        pos, n = 0, self.blocksize
        while not self._stop.is_set():
            block = self.samples[pos:pos + n]
            if len(block) < n:
                self.delivered.set()
                block = np.concatenate([block, np.zeros(n - len(block), np.float32)])
            pos += n
            self.callback(block.reshape(-1, 1), n, None, None)
            time.sleep(0.002)
        self.finished_callback()

    def abort(self):
        self._stop.set()
        if self._thread.is_alive() and threading.current_thread() is not self._thread:
            self._thread.join(2)

    stop = abort

    def close(self):
        pass


@pytest.fixture
def window(qtbot, jarvis_env, tmp_path):
    from jarvis_desktop.media import load_audio
    from jarvis_desktop.ui.main_window import MainWindow

    before = python_threads()
    w = MainWindow(make_settings())
    w.show()
    qtbot.waitUntil(lambda: w.assistant is not None and w.voice.available is not None, timeout=30_000)
    samples = load_audio(espeak_wav(tmp_path / "said.wav"), 16000)
    streams = []

    def factory(**kw):
        streams.append(FileInputStreamStandIn(samples, **kw))
        return streams[-1]

    w.voice.stream_factory = factory
    w.voice.set_availability((True, ""))  # the stand-in sound card has a microphone
    w.streams = streams
    yield w
    close_window(qtbot, w)
    assert python_threads() == before


def test_hold_the_mic_button_to_talk(qtbot, window):
    w = window
    assert w.mic.isEnabled() and "Hold" in w.mic.toolTip()
    levels = []
    w.voice.level.connect(levels.append)
    qtbot.mousePress(w.mic, Qt.MouseButton.LeftButton)
    assert w.voice.mode == "push"
    qtbot.waitUntil(lambda: w.streams and w.streams[0].delivered.is_set(), timeout=20_000)
    qtbot.waitUntil(lambda: w.level.isVisible() and max(levels, default=0) > 0.3, timeout=5_000)
    qtbot.mouseRelease(w.mic, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: w.conversation.last("user") is not None, timeout=60_000)
    said = w.conversation.last("user").text.lower()
    assert "describe this image" in said, said
    qtbot.waitUntil(lambda: not w.busy, timeout=60_000)
    assert w.last_result.text.lower().startswith("please describe this image")
    assert not w.level.isVisible() and w.voice.mode == ""


def test_ctrl_space_is_push_to_talk(qtbot, window):
    w = window
    w.activateWindow()
    w.input.setFocus()
    qtbot.waitUntil(w.isActiveWindow, timeout=5_000)
    qtbot.keyPress(w.input, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    assert w.voice.mode == "push"
    assert w.input.text == ""  # the shortcut typed nothing
    qtbot.waitUntil(lambda: w.streams and w.streams[0].delivered.is_set(), timeout=20_000)
    qtbot.keyRelease(w.input, Qt.Key.Key_Space, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: w.conversation.last("user") is not None, timeout=60_000)
    assert "describe this image" in w.conversation.last("user").text.lower()
    qtbot.waitUntil(lambda: not w.busy, timeout=60_000)


def test_hands_free_turns_each_utterance_into_a_request(qtbot, window):
    w = window
    w.hands_free.setChecked(True)
    assert w.voice.mode == "hands-free"
    qtbot.waitUntil(lambda: w.conversation.last("user") is not None, timeout=60_000)
    assert "describe this image" in w.conversation.last("user").text.lower()
    w.hands_free.setChecked(False)
    qtbot.waitUntil(lambda: w.voice.mode == "", timeout=10_000)
    qtbot.waitUntil(lambda: not w.busy, timeout=60_000)

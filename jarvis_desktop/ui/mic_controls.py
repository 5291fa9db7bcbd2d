"""The microphone controls: hold-to-talk button, Ctrl+Space held anywhere in the window,
a hands-free toggle, a level meter while listening, and a one-line voice status."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, QSize, Qt
from PySide6.QtWidgets import QApplication, QLabel, QProgressBar, QSizePolicy, QToolButton, QWidget

from .style import mic_icon
from .voice_bridge import VoiceBridge


class MicControls(QObject):
    """Owns the voice widgets (the window lays them out) and drives the VoiceBridge."""

    def __init__(self, voice: VoiceBridge, window: QWidget):
        super().__init__(window)
        self.voice = voice
        self.window = window
        self._ptt_key = False
        self.mic = QToolButton()
        self.mic.setObjectName("micButton")
        self.mic.setIcon(mic_icon())
        self.mic.setIconSize(QSize(22, 22))
        self.mic.setFixedSize(52, 40)
        self.mic.setEnabled(False)
        self.mic.setToolTip(voice.reason)
        self.mic.pressed.connect(lambda: self.start_listening("push"))
        self.mic.released.connect(self.stop_push)
        self.hands_free = QToolButton()
        self.hands_free.setText("Hands-free")
        self.hands_free.setCheckable(True)
        self.hands_free.setEnabled(False)
        self.hands_free.setToolTip("Listen continuously: each sentence you say becomes a request")
        self.hands_free.toggled.connect(self._hands_free_toggled)
        self.level = QProgressBar()
        self.level.setObjectName("levelMeter")
        self.level.setRange(0, 100)
        self.level.setTextVisible(False)
        self.level.setFixedSize(140, 10)
        self.level.setToolTip("Microphone level")
        self.level.setVisible(False)
        self.status = QLabel("")
        self.status.setObjectName("hint")
        # long reasons must not widen the window's middle column: elided here, whole in the tooltip
        self.status.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        voice.availability.connect(self._available)
        voice.level.connect(lambda x: self.level.setValue(int(x * 100)))
        voice.listening_changed.connect(self._listening_changed)
        voice.transcribing.connect(lambda on: self.status.setText("Transcribing…" if on else ""))
        QApplication.instance().installEventFilter(self)

    def detach(self) -> None:
        app = QApplication.instance()
        if app is not None:
            app.removeEventFilter(self)

    def _available(self, ok: bool, reason: str) -> None:
        self.mic.setEnabled(ok)
        self.hands_free.setEnabled(ok)
        self.mic.setToolTip("Hold to talk (or hold Ctrl+Space); release to send" if ok else reason)
        self.hands_free.setToolTip("Listen continuously: each sentence becomes a request" if ok else reason)
        self.status.setText("" if ok else reason)
        self.status.setToolTip(reason)

    def start_listening(self, mode: str) -> None:
        if self.voice.start_listening(mode):
            self.voice.stop_speaking()  # the user talks: the assistant stops talking

    def stop_push(self) -> None:
        if self.voice.mode == "push":
            self.voice.stop_listening()

    def _hands_free_toggled(self, on: bool) -> None:
        if on:
            if not self.voice.start_listening("hands-free"):
                self.hands_free.setChecked(False)
        elif self.voice.mode == "hands-free":
            self.voice.stop_listening()

    def _listening_changed(self, on: bool) -> None:
        self.level.setVisible(on)
        self.mic.setIcon(mic_icon("#ffffff") if on else mic_icon())
        self.mic.setProperty("listening", on)
        self.mic.style().unpolish(self.mic)
        self.mic.style().polish(self.mic)
        self.status.setText("Listening…" if on else "")
        if not on and self.hands_free.isChecked():
            self.hands_free.blockSignals(True)
            self.hands_free.setChecked(False)
            self.hands_free.blockSignals(False)

    def eventFilter(self, obj: QObject, e: QEvent) -> bool:  # noqa: N802 - Qt override
        """Ctrl+Space held anywhere in the window is push-to-talk (auto-repeat swallowed)."""
        t = e.type()
        if t in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease) and self.window.isActiveWindow():
            if e.key() == Qt.Key.Key_Space and not e.isAutoRepeat():
                if t == QEvent.Type.KeyPress and e.modifiers() & Qt.KeyboardModifier.ControlModifier:
                    self._ptt_key = True
                    if self.mic.isEnabled():
                        self.start_listening("push")
                    return True
                if t == QEvent.Type.KeyRelease and self._ptt_key:
                    self._ptt_key = False
                    self.stop_push()
                    return True
            elif e.key() == Qt.Key.Key_Space and self._ptt_key:
                return True
        return False

"""The desktop window, driven like a person would, against the real offline pipeline.

Real widgets on the offscreen platform, a real SQLite session log, the real planner and the
shipped expert models; only the sound card is missing here (so the mic button is disabled).
"""

from __future__ import annotations

import json

import pytest

import PySide6  # noqa: F401  (make setup installs it: missing is a failure)

from pathlib import Path  # noqa: E402

from PySide6.QtCore import QObject, QThreadPool, Qt, Slot  # noqa: E402
from PySide6.QtGui import QDesktopServices, QImage  # noqa: E402

from test_ui_support import (SPOKEN, close_window, drop_files, espeak_wav, make_settings, page_png,  # noqa: E402
                              python_threads, screenshot, type_and_enter)


@pytest.fixture
def open_window(qtbot, jarvis_env):
    """Makes ready MainWindows; at the end closes them and checks that no thread is left running."""
    from jarvis_desktop.ui import workers
    from jarvis_desktop.ui.main_window import MainWindow

    before = set(python_threads())
    made = []

    def make(**overrides):
        w = MainWindow(make_settings(**overrides))
        w.history.confirm_delete = False
        w.show()
        made.append(w)
        qtbot.waitUntil(lambda: w.assistant is not None, timeout=30_000)
        return w

    yield make
    for w in made:
        if not w._closed:
            close_window(qtbot, w)
    assert not workers.live_threads(), f"worker threads left running: {workers.live_threads()}"
    QThreadPool.globalInstance().waitForDone(5000)
    assert QThreadPool.globalInstance().activeThreadCount() == 0
    left = [n for n in python_threads() if n not in before]
    assert not left, f"threads left running: {left}"


class UrlCatcher(QObject):
    """Receives the URLs the window asks the desktop to open (no file manager runs in tests)."""

    def __init__(self):
        super().__init__()
        self.urls: list[str] = []

    @Slot("QUrl")
    def open(self, url) -> None:
        self.urls.append(url.toLocalFile().rstrip("/"))


def wait_finished(qtbot, window, timeout: int = 120_000):
    qtbot.waitUntil(lambda: not window.busy, timeout=timeout)
    return window.last_result


def test_enter_runs_the_pipeline_and_the_plan_panel_follows_each_task(qtbot, open_window):
    w = open_window()
    assert w.first_run is True
    qtbot.waitUntil(lambda: w.banner.isVisible(), timeout=30_000)
    assert "offline" in w.banner.label.text().lower()
    assert "Settings" in w.banner.label.text()
    screenshot(w, "01-empty-first-run")

    type_and_enter(qtbot, w, "Find the people and places in: Ada Lovelace was born in London")
    assert w.busy and w.stop_button.isEnabled() and not w.send_button.isEnabled()
    assert w.input.text == ""  # the box is cleared for the next request
    result = wait_finished(qtbot, w)
    assert result.status == "done", result.error
    assert [t["task"] for t in result.plan.to_json()] == ["token-classification"]
    # the plan panel saw the task wait, run and finish, with the model and where it ran
    assert w.plan.states(0) == ["waiting", "running", "done"]
    row = w.plan.rows[0]
    assert row.model_id and row.model_id.endswith("/" + row.item.text(1))
    assert row.model_id in row.item.toolTip(1) and row.reason and row.reason in row.item.toolTip(1)
    assert row.item.text(2) == "CPU"
    assert "done" in w.plan.status_text(0)
    # the answer is on screen and names what was found
    answer = w.conversation.last("assistant")
    assert answer is not None and "London" in answer.text and "Ada Lovelace" in answer.text
    assert [m.role for m in w.conversation.messages] == ["user", "assistant"]
    assert not w.stop_button.isEnabled() and w.send_button.isEnabled()
    # the session is in the sidebar, marked current
    assert w.history.session_ids() == [w.session_id]


def test_a_correction_is_shown_beside_the_plan(qtbot, open_window):
    w = open_window()
    type_and_enter(qtbot, w, 'Find the people and places in "Grace Hopper lived in Boston". Sorry, make that "Grace Hopper lived in Arlington".')
    result = wait_finished(qtbot, w)
    assert result.status == "done", result.error
    assert [(t["task"], t["args"]["text"]) for t in result.plan.to_json()] == [("token-classification", "Grace Hopper lived in Arlington")]
    summary = w.plan.summary.text()
    assert "correction" in summary and "Boston" in summary and "Arlington" in summary


def test_dropped_wav_is_attached_and_the_request_transcribes_it(qtbot, open_window, tmp_path):
    w = open_window()
    wav = espeak_wav(tmp_path / "request.wav")
    drop_files(qtbot, w, [wav])
    assert w.attachments.paths() == [str(wav.resolve())]
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    assert w.attachments.isVisible() and w.attachments.chips[str(wav.resolve())].ready
    # a chip can be removed, and dropped again
    w.attachments.chips[str(wav.resolve())].remove_button.click()
    assert w.attachments.paths() == []
    drop_files(qtbot, w, [wav])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)

    type_and_enter(qtbot, w, "transcribe this recording")
    assert w.attachments.paths() == []  # attached to that request, not the next
    user = w.conversation.last("user")
    assert len(user.audio_items()) == 1 and user.audio_items()[0].path == str(wav.resolve())
    result = wait_finished(qtbot, w, timeout=180_000)
    assert result.status == "done", result.error
    assert result.plan.tasks[0].task == "automatic-speech-recognition"
    answer = w.conversation.last("assistant").text.lower()
    assert "describe this image" in answer, answer
    assert w.plan.states(0) == ["waiting", "running", "done"]


def test_a_file_put_aside_stays_attached_and_the_next_request_uses_it(qtbot, open_window, tmp_path):
    """'here's the recording, nothing to do yet' runs nothing, and the recording stays in the
    attachment bar: 'transcribe it now' then works on it without dropping it again."""
    w = open_window()
    wav = espeak_wav(tmp_path / "meeting.wav")
    drop_files(qtbot, w, [wav])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    type_and_enter(qtbot, w, "here's the meeting recording for later, nothing to do yet")
    result = wait_finished(qtbot, w)
    assert result.plan.tasks == [] and result.results == {}
    assert "nothing was run" in w.conversation.last("assistant").text.lower()
    assert w.attachments.paths() == [str(wav.resolve())]
    assert "meeting.wav" in w.statusBar().currentMessage()

    type_and_enter(qtbot, w, "ok transcribe it now")
    assert w.attachments.paths() == []
    result = wait_finished(qtbot, w, timeout=180_000)
    assert [t.task for t in result.plan.tasks] == ["automatic-speech-recognition"], result.plan.to_json()
    assert result.files == [str(wav.resolve())] and result.status == "done", result.error
    assert w.attachments.paths() == []  # used this time: not kept


def test_answer_with_image_and_audio_and_a_dependent_task(qtbot, open_window, tmp_path):
    w = open_window()
    page = page_png(tmp_path / "page.png")
    page_size = QImage(str(page)).size()
    drop_files(qtbot, w, [page])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=20_000)
    shots = {}

    def on_event(e):
        if type(e).__name__ == "TaskStarted" and "running" not in shots:
            shots["running"] = screenshot(w, "02-running-plan")

    type_and_enter(qtbot, w, "Read the text in this image, then read it aloud")
    w.worker.event.connect(on_event)
    result = wait_finished(qtbot, w, timeout=180_000)
    assert result.status == "done", result.error
    tasks = result.plan.to_json()
    assert [t["task"] for t in tasks] == ["image-to-text", "text-to-speech"]
    # the dependent task is drawn under the task it needs
    first, second = w.plan.rows[0], w.plan.rows[1]
    assert second.item.parent() is first.item
    assert w.plan.states(1)[0] == "waiting" and w.plan.states(1)[-1] == "done"
    # the produced speech is a playable item in the answer; its name links to the output
    answer = w.conversation.last("assistant")
    audio = answer.audio_items()
    assert len(audio) == 1 and audio[0].path.endswith(".wav")
    assert second.outputs == [audio[0].path] and second.item.text(4).endswith(".wav")
    # the dropped image is a thumbnail in the user's turn
    thumbs = w.conversation.last("user").thumbnails()
    assert len(thumbs) == 1
    qtbot.waitUntil(lambda: thumbs[0].loaded, timeout=10_000)
    assert thumbs[0].pixmap().width() <= 220
    assert "running" in shots
    screenshot(w, "03-answer-image-audio")
    # a click on the thumbnail opens the full-size image
    qtbot.mouseClick(thumbs[0], Qt.MouseButton.LeftButton)
    viewer = thumbs[0].viewer
    qtbot.waitUntil(lambda: viewer.image_size != (0, 0), timeout=10_000)
    assert viewer.isVisible() and viewer.image_size == (page_size.width(), page_size.height())
    viewer.close()
    # the output file's name opens its folder (the desktop's file manager is caught here)
    opened = UrlCatcher()
    QDesktopServices.setUrlHandler("file", opened, "open")
    try:
        audio[0].name.linkActivated.emit("#")
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert opened.urls == [str(Path(audio[0].path).parent)]


def test_stop_cancels_the_running_request(qtbot, open_window, tmp_path):
    w = open_window()
    wav = espeak_wav(tmp_path / "long.wav", SPOKEN + ". " + SPOKEN)
    w.attach_files([str(wav)])
    w.input.setPlainText("transcribe this recording")
    assert w.send()
    w.stop()  # at once: the request is still planning
    result = wait_finished(qtbot, w)
    assert result.status == "cancelled"
    answer = w.conversation.last("assistant")
    assert "Stopped" in answer.text or "Stopped" in answer.status.text()
    assert not w.stop_button.isEnabled() and w.send_button.isEnabled()
    row = w.assistant.store.get_session(w.session_id).requests[-1]
    assert row["status"] == "cancelled"
    # the window takes the next request
    type_and_enter(qtbot, w, "hello")
    assert wait_finished(qtbot, w).status == "done"


def test_corrupt_and_unsupported_drops_are_refused_without_breaking_the_window(qtbot, open_window, tmp_path):
    w = open_window()
    bad_wav = tmp_path / "garbage.wav"
    bad_wav.write_bytes(b"RIFF\x00\x01not really a wave file" * 50)
    bad_png = tmp_path / "broken.png"
    bad_png.write_bytes(b"\x89PNG\r\n\x1a\n" + b"\x00" * 200)
    exe = tmp_path / "setup.exe"
    exe.write_bytes(b"MZ" * 100)
    drop_files(qtbot, w, [exe])
    assert w.attachments.paths() == []
    assert "setup.exe" in w.notice.text and "unsupported" in w.notice.text
    drop_files(qtbot, w, [bad_wav])
    qtbot.waitUntil(lambda: "garbage.wav" in w.notice.text, timeout=10_000)
    assert w.attachments.paths() == []
    drop_files(qtbot, w, [bad_png])
    qtbot.waitUntil(lambda: "broken.png" in w.notice.text, timeout=10_000)
    assert w.attachments.paths() == [] and "corrupt" in w.notice.text
    screenshot(w, "05-refused-file")
    type_and_enter(qtbot, w, "hello")
    result = wait_finished(qtbot, w)
    assert result.status == "done" and w.conversation.last("assistant").text


def test_a_dropped_workbook_is_attached_and_a_damaged_one_refused(qtbot, open_window, tmp_path):
    """A workbook is a zip archive: the check for binary data posing as text must not refuse it."""
    from openpyxl import Workbook

    w = open_window()
    wb = Workbook()
    wb.active.append(["region", "units"])
    wb.active.append(["North", 12])
    good = tmp_path / "sales.xlsx"
    wb.save(good)
    damaged = tmp_path / "damaged.xlsx"
    damaged.write_bytes(good.read_bytes()[:300])  # cut short in the middle of the archive
    drop_files(qtbot, w, [good])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    assert w.attachments.paths() == [str(good.resolve())] and w.attachments.chips[str(good.resolve())].ready
    drop_files(qtbot, w, [damaged])
    qtbot.waitUntil(lambda: "damaged.xlsx" in w.notice.text, timeout=10_000)
    assert w.attachments.paths() == [str(good.resolve())] and "Excel workbook" in w.notice.text


def test_a_dropped_document_is_attached_and_a_scanned_pdf_refused_with_what_to_do(qtbot, open_window, tmp_path):
    """A .docx is a zip archive and a PDF is binary: both are read for their text at drop time."""
    from helpers.documents import pdf_file, word_file

    w = open_window()
    good = word_file(tmp_path / "minutes.docx", ["The board met on Tuesday."])
    scanned = pdf_file(tmp_path / "scanned.pdf", [])
    drop_files(qtbot, w, [good])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    assert w.attachments.paths() == [str(good.resolve())] and w.attachments.chips[str(good.resolve())].ready
    drop_files(qtbot, w, [scanned])
    qtbot.waitUntil(lambda: "scanned.pdf" in w.notice.text, timeout=10_000)
    assert w.attachments.paths() == [str(good.resolve())] and "pages as images" in w.notice.text


def test_pasted_image_is_attached(qtbot, open_window):
    from PySide6.QtCore import QMimeData
    from PySide6.QtGui import QColor, QImage

    w = open_window()
    image = QImage(64, 48, QImage.Format.Format_RGB32)
    image.fill(QColor("#3366cc"))
    mime = QMimeData()
    mime.setImageData(image)
    assert w.input.canInsertFromMimeData(mime)
    w.input.insertFromMimeData(mime)  # what Ctrl+V does with an image on the clipboard
    assert len(w.attachments.paths()) == 1
    saved = w.attachments.paths()[0]
    assert saved.endswith(".png") and w.settings.data_path.as_posix() in saved
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    assert w.input.text == ""


def test_history_survives_a_restart_and_can_be_searched_reopened_exported_deleted(qtbot, open_window, tmp_path):
    w = open_window()
    type_and_enter(qtbot, w, "Find the people and places in: Grace Hopper visited Paris")
    assert wait_finished(qtbot, w).status == "done"
    type_and_enter(qtbot, w, "hello there")
    assert wait_finished(qtbot, w).status == "done"
    first_session = w.session_id
    w.new_conversation()
    type_and_enter(qtbot, w, "Find the people and places in: Alan Turing lived in Manchester")
    assert wait_finished(qtbot, w).status == "done"
    close_window(qtbot, w)

    w2 = open_window()  # a new window against the same database
    qtbot.waitUntil(lambda: len(w2.history.session_ids()) == 2, timeout=10_000)
    assert w2.history.session_ids()[1] == first_session
    # full-text search over requests and answers
    w2.history.search.setText("Hopper")
    qtbot.waitUntil(lambda: w2.history.session_ids() == [first_session], timeout=5_000)
    w2.history.search.setText("zebra")
    qtbot.waitUntil(lambda: w2.history.session_ids() == [], timeout=5_000)
    assert w2.history.empty.isVisible()
    w2.history.search.setText("")
    qtbot.waitUntil(lambda: len(w2.history.session_ids()) == 2, timeout=5_000)
    # reopen: the conversation and its plan come back, and it continues in the same session
    assert w2.open_session(first_session)
    assert [m.role for m in w2.conversation.messages] == ["user", "assistant", "user", "assistant"]
    assert "Paris" in w2.conversation.messages[1].text
    screenshot(w2, "04-history-reopened")
    type_and_enter(qtbot, w2, "thanks")
    assert wait_finished(qtbot, w2).session_id == first_session
    # export and delete
    out = w2.history.export(first_session, str(tmp_path / "export.json"))
    data = json.loads(out.read_text())
    assert [m["text"] for m in data["messages"] if m["role"] == "user"][0].endswith("Grace Hopper visited Paris")
    assert w2.history.delete(first_session)
    assert first_session not in w2.history.session_ids()
    assert w2.conversation.messages == [] and w2.session_id is None


def test_closing_mid_request_cancels_and_loses_nothing(qtbot, open_window, tmp_path):
    w = open_window()
    wav = espeak_wav(tmp_path / "request.wav")
    w.attach_files([str(wav)])
    w.input.setPlainText("transcribe this recording")
    assert w.send()
    sid, store_path = w.session_id, w.settings.db_path
    w.close()
    assert not w.isVisible()  # hidden at once, closes when the worker stopped
    qtbot.waitUntil(lambda: w._closed, timeout=120_000)
    from jarvis_desktop.store.sessions import SessionStore

    store = SessionStore(store_path)
    detail = store.get_session(sid)
    store.close()
    assert detail.messages[0]["text"] == "transcribe this recording"
    assert detail.messages[0]["files"] == [str(wav.resolve())] or detail.messages[0]["files"] == [str(wav)]
    assert detail.requests[0]["status"] in ("cancelled", "done")


def test_microphone_without_a_sound_card_is_disabled_with_the_reason(qtbot, open_window, tmp_path):
    from jarvis_desktop.voice.testing import no_sound_card

    # every sound card hidden from PortAudio, whatever this machine has
    with no_sound_card(tmp_path / "nocard"):
        w = open_window()
        qtbot.waitUntil(lambda: w.voice.available is not None, timeout=30_000)
        assert w.voice.available is False
        assert not w.mic.isEnabled() and not w.hands_free.isEnabled()
        assert w.mic.toolTip() == w.voice.reason and w.voice.reason
        assert not w.voice.start_listening("push")


def test_no_thread_outlives_the_window(qtbot, jarvis_env):
    from jarvis_desktop.ui import workers
    from jarvis_desktop.ui.main_window import MainWindow

    before = python_threads()
    w = MainWindow(make_settings())
    w.show()
    qtbot.waitUntil(lambda: w.assistant is not None, timeout=30_000)
    type_and_enter(qtbot, w, "hello")
    qtbot.waitUntil(lambda: not w.busy, timeout=60_000)
    close_window(qtbot, w)
    assert not workers.live_threads()
    assert python_threads() == before


def test_settings_saved_from_the_window_apply_to_the_next_request(qtbot, open_window):
    w = open_window()
    dialog = w.open_settings(modal=False)
    dialog.show()
    dialog.llm_model.setText("other-model")
    dialog.planner.setCurrentText("offline")
    old = w.assistant
    assert dialog.save()
    assert w.settings.llm_model == "other-model" and w.assistant is not old
    assert w.assistant.settings.planner == "offline"
    assert w.assistant.store is old.store  # same database, same history
    type_and_enter(qtbot, w, "hello")
    assert wait_finished(qtbot, w).status == "done"


def test_an_answer_with_a_produced_image_and_speech(qtbot, open_window, jarvis_env, tmp_path):
    """A tiny random DETR in the model cache (loaded through the same code path as a real one)
    draws its boxes into a new image; the answer shows it as a thumbnail beside the spoken result."""
    import torch  # noqa: F401  (make setup installs it: missing is a failure)
    import helpers.tiny_models as tiny
    from PIL import Image
    from skimage import data

    build = tmp_path / "detr"
    build.mkdir()
    tiny.object_detector(build)
    tiny.put_in_cache(jarvis_env / "model_cache", "tiny/detr-resnet", build)
    photo = tmp_path / "astronaut.png"
    Image.fromarray(data.astronaut()).save(photo)

    w = open_window()
    w.attach_files([str(photo)])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=20_000)
    # (the learned planner adds a caption step to "...and say what you found out loud": a known
    # weakness recorded in the issue 10 notes; this test is about showing the outputs)
    type_and_enter(qtbot, w, "Detect the objects in this image and tell me the result out loud")
    result = wait_finished(qtbot, w, timeout=240_000)
    assert result.status == "done", result.error
    assert [t.task for t in result.plan.tasks] == ["object-detection", "text-to-speech"]
    assert w.plan.rows[0].model_id == "tiny/detr-resnet"
    answer = w.conversation.last("assistant")
    thumbs, audio = answer.thumbnails(), answer.audio_items()
    assert len(thumbs) == 1 and thumbs[0].path.endswith("detected.png")
    assert len(audio) == 1 and audio[0].path.endswith(".wav")
    qtbot.waitUntil(lambda: thumbs[0].loaded, timeout=10_000)
    screenshot(w, "03b-answer-image-and-audio")
    # reopened from the history, the produced files come back with the conversation
    sid = w.session_id
    w.new_conversation()
    assert w.open_session(sid)
    again = w.conversation.last("assistant")
    assert [t.path for t in again.thumbnails()] == [thumbs[0].path]
    assert [a.path for a in again.audio_items()] == [audio[0].path]


def test_a_failed_task_shows_its_error_and_its_dependant_is_skipped(qtbot, open_window):
    w = open_window()
    type_and_enter(qtbot, w, "Summarize this text, then read the summary aloud: The quick brown fox jumps "
                             "over the lazy dog. It was a sunny day and everyone was happy.")
    result = wait_finished(qtbot, w)
    assert [t.task for t in result.plan.tasks] == ["summarization", "text-to-speech"]
    assert w.plan.states(0) == ["waiting", "running", "failed"]
    assert w.plan.states(1) == ["waiting", "skipped"]
    failed, skipped = w.plan.rows[0], w.plan.rows[1]
    assert "not in the local model cache" in failed.item.text(4)
    assert "jarvis models pull" in failed.item.toolTip(3)
    assert "failed" in skipped.item.text(4)
    assert skipped.item.parent() is failed.item
    assert "failed" in w.conversation.last("assistant").text
    screenshot(w, "02b-failed-and-skipped")


def test_a_refused_request_is_shown_as_an_error_turn(qtbot, open_window, tmp_path):
    w = open_window()
    gone = tmp_path / "gone.wav"
    gone.write_bytes(b"RIFF")
    w.attachments.add(gone)  # accepted at once by name; removed from disk before sending
    gone.unlink()
    w.input.setPlainText("transcribe this")
    assert w.send()
    result = wait_finished(qtbot, w)
    assert result.status == "failed" and "gone.wav" in result.error
    answer = w.conversation.last("assistant")
    assert answer.objectName() == "errorBubble" and "gone.wav" in answer.text


def test_stop_talking_said_over_a_running_request_stops_it(qtbot, open_window, tmp_path):
    """What the microphone hears while a request runs waits in the input box, except "stop
    talking", which is the Stop button."""
    w = open_window()
    wav = espeak_wav(tmp_path / "memo.wav")
    drop_files(qtbot, w, [wav])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    type_and_enter(qtbot, w, "transcribe this recording")
    assert w.busy
    w._heard("okay stop talking")
    result = wait_finished(qtbot, w)
    assert result.status == "cancelled" and w.input.text == ""
    drop_files(qtbot, w, [wav])
    qtbot.waitUntil(lambda: not w.attachments.checking(), timeout=10_000)
    type_and_enter(qtbot, w, "transcribe this recording")  # other words heard meanwhile wait in the box
    assert w.busy
    w._heard("and then summarise it")
    assert w.input.text == "and then summarise it"
    wait_finished(qtbot, w, timeout=180_000)

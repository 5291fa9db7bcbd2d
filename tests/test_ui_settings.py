"""The settings dialog: values persist to the settings file, keys go to the keyring and never to
the file, the Models page lists the cache; plus the secrets helper on a machine without a keyring."""

from __future__ import annotations

import pytest

import PySide6  # noqa: F401  (make setup installs it: missing is a failure)

from test_ui_support import make_settings, screenshot  # noqa: E402


class InMemoryKeyring:
    """Stands in for the OS keyring, which cannot exist on this headless test machine."""

    priority = 10

    def __init__(self):
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service, name):
        return self.store.get((service, name))

    def set_password(self, service, name, value):
        self.store[(service, name)] = value

    def delete_password(self, service, name):
        self.store.pop((service, name), None)


@pytest.fixture
def os_keyring(monkeypatch):
    import keyring
    from keyring.backend import KeyringBackend

    class Backend(InMemoryKeyring, KeyringBackend):
        pass

    backend = Backend()
    previous = keyring.get_keyring()
    keyring.set_keyring(backend)
    yield backend
    keyring.set_keyring(previous)


def test_settings_persist_and_the_key_goes_to_the_keyring(qtbot, jarvis_env, os_keyring):
    from jarvis_desktop.config import load_settings, settings_file
    from jarvis_desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(make_settings(tts=True))
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(lambda: dialog.models_page.loaded, timeout=20_000)
    screenshot(dialog, "06-settings-language-model")
    dialog.llm_model.setText("my-model")
    dialog.base_url.setText("http://127.0.0.1:8080/v1")
    dialog.api_key.setText("sk-secret-123")
    dialog.planner.setCurrentText("hybrid")
    dialog.device.setCurrentText("cpu")
    dialog.model_budget.setValue(3.5)
    dialog.tts.setChecked(False)
    dialog.voice.setCurrentText("espeak-ng")
    dialog.silence_ms.setValue(900)
    dialog.speech_rate.setValue(130)
    saved = []
    dialog.saved.connect(saved.append)
    assert dialog.save()
    assert saved and saved[0].llm_model == "my-model" and saved[0].api_key == "sk-secret-123"

    text = settings_file().read_text()
    assert "sk-secret-123" not in text and "api_key" not in text
    assert os_keyring.store[("jarvis-desktop", "api_key")] == "sk-secret-123"
    # environment-provided values are not frozen into the file
    assert "data_dir" not in text and "offline" not in text
    again = load_settings()
    assert (again.llm_model, again.base_url, again.planner, again.device) == (
        "my-model", "http://127.0.0.1:8080/v1", "hybrid", "cpu")
    assert (again.model_budget_gb, again.tts, again.voice, again.silence_ms) == (3.5, False, "espeak-ng", 900)
    assert again.speech_rate == 1.3
    assert again.api_key == "sk-secret-123"  # read back from the keyring
    # a new dialog shows what was saved
    d2 = SettingsDialog(again)
    qtbot.addWidget(d2)
    assert d2.llm_model.text() == "my-model" and d2.api_key.text() == "sk-secret-123"
    assert not d2.tts.isChecked() and d2.device.currentText() == "cpu" and d2.speech_rate.value() == 130
    # clearing the key removes it from the keyring
    d2.api_key.setText("")
    assert d2.save()
    assert ("jarvis-desktop", "api_key") not in os_keyring.store
    assert load_settings().api_key == ""


def test_invalid_values_are_not_saved(qtbot, jarvis_env):
    from jarvis_desktop.config import settings_file
    from jarvis_desktop.ui.settings_dialog import SettingsDialog

    dialog = SettingsDialog(make_settings())
    qtbot.addWidget(dialog)
    dialog.device.setCurrentText("quantum")
    assert not dialog.save()
    assert "device" in dialog.note.text()
    assert not settings_file().exists()


def test_models_page_lists_the_cache_with_sizes(qtbot, jarvis_env):
    from jarvis_desktop.ui.settings_dialog import SettingsDialog

    cache = jarvis_env / "model_cache"
    snap = cache / "models--acme--tiny-bert" / "snapshots" / ("a" * 40)
    snap.mkdir(parents=True)
    (cache / "models--acme--tiny-bert" / "refs").mkdir()
    (cache / "models--acme--tiny-bert" / "refs" / "main").write_text("a" * 40)
    (snap / "config.json").write_text('{"architectures": ["BertForSequenceClassification"], "model_type": "bert"}')
    (snap / "model.safetensors").write_bytes(b"\0" * 2_500_000)
    dialog = SettingsDialog(make_settings())
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.tabs.setCurrentWidget(dialog.models_page)
    page = dialog.models_page
    qtbot.waitUntil(lambda: page.loaded, timeout=20_000)
    assert page.table.rowCount() == 1
    assert page.table.item(0, 0).text() == "acme/tiny-bert"
    assert page.table.item(0, 2).text() == "2.5 MB"
    assert "text-classification" in page.table.item(0, 1).text()
    # offline: pulling is switched off, and says why
    assert not page.pull_button.isEnabled() and "Offline" in page.pull_button.toolTip()
    screenshot(dialog, "07-settings-models")


def test_secrets_without_a_keyring_fall_back_to_the_environment(monkeypatch, jarvis_env):
    import keyring
    from keyring.backends import fail

    from jarvis_desktop import secrets
    from jarvis_desktop.config import load_settings

    previous = keyring.get_keyring()
    keyring.set_keyring(fail.Keyring())
    try:
        assert not secrets.keyring_available()
        assert secrets.get_secret("api_key") == ""
        ok, message = secrets.store_secret("api_key", "sk-x")
        assert not ok and "environment" in message
        monkeypatch.setenv("OPENAI_API_KEY", "sk-from-env")
        assert load_settings().api_key == "sk-from-env"
    finally:
        keyring.set_keyring(previous)


def test_the_window_takes_the_key_from_the_keyring_after_it_appears(qtbot, jarvis_env, os_keyring, monkeypatch):
    from jarvis_desktop.config import load_settings
    from jarvis_desktop.ui.main_window import MainWindow

    os_keyring.set_password("jarvis-desktop", "api_key", "sk-kept")
    os_keyring.set_password("jarvis-desktop", "hf_token", "hf-kept")
    monkeypatch.setenv("HF_TOKEN", "hf-from-env")
    import os

    settings = load_settings(env=dict(os.environ))  # what run_app reads before the first paint
    assert settings.api_key == "" and settings.hf_token == "hf-from-env"
    w = MainWindow(settings, fill_secrets=True)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.assistant is not None, timeout=30_000)
    assert w.settings.api_key == "sk-kept"
    assert w.settings.hf_token == "hf-from-env"  # the environment still wins
    assert w.assistant.settings.api_key == "sk-kept"
    assert w.first_run is False and not w.banner.isVisible()  # a language model is configured
    w.close()
    qtbot.waitUntil(lambda: w._closed, timeout=30_000)


def test_models_page_exports_and_imports_across_the_air_gap(qtbot, jarvis_env, tmp_path):
    """Export from one cache to a folder, import that folder into an empty cache, offline."""
    from helpers.tiny_models import build, image_classifier
    from jarvis_desktop.ui.settings_dialog import ModelsPage

    source = tmp_path / "source_cache"
    build(source, {"acme/vit-tiny": image_classifier}, work=tmp_path / "build")
    page = ModelsPage(make_settings(model_cache=str(source)))
    qtbot.addWidget(page)
    qtbot.waitUntil(lambda: page.loaded, timeout=20_000)
    assert page.export_button.isEnabled() and page.import_button.isEnabled()
    page.export_to(str(tmp_path / "usb"))
    qtbot.waitUntil(lambda: page.transfer_done, timeout=30_000)
    assert "Exported 1 model(s)" in page.status.text() and (tmp_path / "usb" / "jarvis-models.json").is_file()

    empty = ModelsPage(make_settings())  # jarvis_env's empty model cache, offline
    qtbot.addWidget(empty)
    qtbot.waitUntil(lambda: empty.loaded, timeout=20_000)
    assert empty.table.rowCount() == 0
    empty.import_from(str(tmp_path / "usb"))
    qtbot.waitUntil(lambda: empty.transfer_done and empty.table.rowCount() == 1, timeout=30_000)
    assert "Imported 1 model(s) (acme/vit-tiny)" in empty.status.text() and "verified by checksum" in empty.status.text()
    assert empty.table.item(0, 0).text() == "acme/vit-tiny"
    empty.import_from(str(tmp_path / "nowhere"))
    qtbot.waitUntil(lambda: empty.transfer_done, timeout=30_000)
    assert "is not a folder" in empty.status.text()


def test_setup_dialog_offline_explains_the_route(qtbot, jarvis_env):
    from jarvis_desktop.ui.settings_dialog import ModelsPage

    page = ModelsPage(make_settings())
    qtbot.addWidget(page)
    dialog = page.open_setup()
    qtbot.addWidget(dialog)
    assert [b.text().split(" (")[0] for b in dialog.boxes.values()] == [
        "Describe and read images", "Listen and transcribe", "Make images", "Translate and summarise"]
    assert "GB to download" in dialog.boxes["images"].text() and "Free disk space" in dialog.free.text()
    qtbot.waitUntil(lambda: not dialog.download_button.isEnabled(), timeout=20_000)
    assert "jarvis models import DIR" in dialog.status.text() and "Offline mode is on" in dialog.status.text()
    screenshot(dialog, "08-setup-offline")


def test_setup_dialog_downloads_from_a_fake_hub_with_a_bar_per_model(qtbot, jarvis_env, tmp_path, monkeypatch):
    from huggingface_hub import constants

    from helpers.fake_hub import FakeHub
    from helpers.tiny_models import build, image_classifier
    from jarvis_desktop.experts.model_store import DefaultModel
    from jarvis_desktop.experts.packs import Pack
    from jarvis_desktop.ui.setup_dialog import SetupDialog

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    src = build(tmp_path / "src", {"tiny/vit": image_classifier}, work=tmp_path / "build")["tiny/vit"]
    hub = FakeHub("acme/vit-tiny", src)
    try:
        dialog = SetupDialog(make_settings(offline=False), endpoint=hub.url)
        qtbot.addWidget(dialog)
        pack = Pack("test", "Test pack", "one tiny model", (), (DefaultModel("image-classification", "acme/vit-tiny", "mit", 0.1),))
        dialog.packs = [pack]
        dialog.plans = {"test": type(dialog.plans["images"])(models=list(pack.extra))}
        from PySide6.QtWidgets import QCheckBox

        dialog.boxes = {"test": QCheckBox("Test pack")}
        dialog.boxes["test"].setChecked(True)
        dialog.start()
        qtbot.waitUntil(lambda: dialog.finished_downloads, timeout=60_000)
        assert dialog.status.text().startswith("1 of 1 model(s) ready")
        assert dialog.bars["acme/vit-tiny"].value() == 1000 and dialog.bars["acme/vit-tiny"].format() == "ready"
    finally:
        hub.close()


def test_the_window_warms_the_offline_planner_in_the_background(qtbot, jarvis_env):
    """The parser and the clause encoder load while the user is still typing, on a worker thread,
    not when the first request is planned."""
    from jarvis_desktop.ui.main_window import MainWindow

    w = MainWindow(make_settings())
    qtbot.addWidget(w)
    w.show()

    def warm() -> bool:
        planner = getattr(getattr(w, "assistant", None), "_offline_planner", None)
        return planner is not None and planner.detector._warm

    qtbot.waitUntil(warm, timeout=60_000)
    assert w.send_button.isEnabled()
    w.close()
    qtbot.waitUntil(lambda: w._closed, timeout=30_000)


def test_the_first_run_banner_offers_model_setup(qtbot, jarvis_env):
    from jarvis_desktop.ui.main_window import MainWindow

    w = MainWindow(make_settings())
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: w.banner.isVisible(), timeout=30_000)
    assert w.first_run and "Set up models" in w.banner.text and w.setup_models_button.isVisible()
    w.setup_models_button.click()
    dialog = w.setup_dialog
    assert dialog.isVisible() and "Describe and read images" in dialog.boxes["images"].text()
    qtbot.waitUntil(lambda: "jarvis models import DIR" in dialog.status.text(), timeout=20_000)
    dialog.reject()
    w.close()
    qtbot.waitUntil(lambda: w._closed, timeout=30_000)


def test_models_page_pull_shows_size_and_speed_and_a_network_failure_in_one_line(qtbot, jarvis_env, tmp_path, monkeypatch):
    import socket

    from huggingface_hub import constants

    from helpers.fake_hub import FakeHub
    from helpers.tiny_models import build, image_classifier
    from jarvis_desktop.ui.settings_dialog import ModelsPage

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    src = build(tmp_path / "src", {"tiny/vit": image_classifier}, work=tmp_path / "build")["tiny/vit"]
    hub = FakeHub("acme/vit-tiny", src)
    try:
        page = ModelsPage(make_settings(offline=False))
        page.endpoint = hub.url
        qtbot.addWidget(page)
        qtbot.waitUntil(lambda: page.loaded, timeout=20_000)
        formats = []
        page.progress.valueChanged.connect(lambda _v: formats.append(page.progress.format()))
        page.model_id.setText("acme/vit-tiny")
        page.pull()
        assert page.pull_button.text() == "Cancel pull"
        qtbot.waitUntil(lambda: page.status.text().startswith("Pulled acme/vit-tiny"), timeout=60_000)
        assert any(" of " in f and "/s" in f for f in formats) and page.pull_button.text() == "Pull"
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            dead = s.getsockname()[1]
        page.endpoint = f"http://127.0.0.1:{dead}"
        page.model_id.setText("acme/other")
        page.pull()
        qtbot.waitUntil(lambda: page.status.text().startswith("Cannot download"), timeout=60_000)
        assert "could not be reached" in page.status.text() and "Traceback" not in page.status.text()
    finally:
        hub.close()

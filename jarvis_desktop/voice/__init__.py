"""Speech in and out: capture, voice activity, recognition, synthesis, playback. Qt-free.

- ``asr.Transcriber``: faster-whisper (shipped tiny.en by default), file or 16 kHz array -> text
- ``tts.Synthesizer``: piper (shipped en_US-joe-medium by default), espeak-ng fallback
- ``capture.Microphone``: 16 kHz mono blocks from sounddevice, level meter, pre-roll
- ``vad.Endpointer``: Silero VAD (shipped with faster-whisper) -> utterance start/pause/end
- ``listener.VoiceInput``: push-to-talk and hands-free on a thread; ``listener.Recognizer``
- ``turn.TurnDetector`` / ``TurnTaker``: end of turn from the partial transcript (spaCy, Whisper's
  punctuation and confidence); the configured silence is only the upper bound
- ``echo.EchoCanceller``: WebRTC AEC3 against a ``ReferenceTrack`` of what was played; barge-in gate
- ``playback.Player``: one open output stream, clips queued back to back, stops at once
- ``speaker.StreamingSpeaker`` / ``EventSpeaker``: speak an answer sentence by sentence as it
  streams, barge-in, self-echo guard
- ``commands.read_voice_command``: "speak slower", "turn your voice down": settings, not plans
- ``conversation.listen_loop``: the terminal conversation behind ``jarvis listen``

Submodules import their heavy libraries lazily; importing this package costs nothing.
"""

"""Speech in and out: capture, voice activity, recognition, synthesis, playback. Qt-free."""

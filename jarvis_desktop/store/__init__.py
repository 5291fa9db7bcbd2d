"""The session log in SQLite."""

"""Words mistyped by one letter ("sumarize", "transcibe", "tranlsate") read as the word meant.

People type requests in a hurry. A word the step classifier has never seen carries no weight, so
a typo in the one word that names the step loses the step. A word it does not know is read as the
one word it does know that is a single edit away (a letter dropped, added, changed, or two letters
swapped), when exactly one such word exists; short words are left alone (too many neighbours).
"""

from __future__ import annotations

from string import ascii_lowercase

#: Words shorter than this are never corrected ("tone" and "town" are one edit apart).
MIN_LENGTH = 5


def one_edit(word: str) -> set[str]:
    """Every string one edit away from ``word``."""
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    deletes = {a + b[1:] for a, b in splits if b}
    swaps = {a + b[1] + b[0] + b[2:] for a, b in splits if len(b) > 1}
    changes = {a + c + b[1:] for a, b in splits if b for c in ascii_lowercase}
    inserts = {a + c + b for a, b in splits for c in ascii_lowercase}
    return (deletes | swaps | changes | inserts) - {word}


class Speller:
    """Corrects unknown words against a set of known ones."""

    def __init__(self, known: set[str]):
        self.known = known
        self._seen: dict[str, str | None] = {}

    def correct(self, word: str) -> str | None:
        """The known word ``word`` was meant to be, or None (known already, too short, or ambiguous)."""
        if word in self.known or len(word) < MIN_LENGTH or not word.isalpha():
            return None
        if word not in self._seen:
            if len(self._seen) > 10_000:  # a resident planner lives long: keep the memo small
                self._seen.clear()
            near = one_edit(word) & self.known
            self._seen[word] = next(iter(near)) if len(near) == 1 else None
        return self._seen[word]

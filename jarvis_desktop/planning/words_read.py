""""What does it say?" of a picture asks for its words read off, not for an answer to a question
about it: "what does this sign say?", "here's grandma's recipe card, what does it say?", "tell me
what the receipt says". Asked of something in it ("what does the board say about the 10:15",
"what does the slide say the deadline is") it is a question about the page. Why: the step model
hears "receipt", "form", "card" and answers a question nobody asked; what the user wants is the
text itself, which only reading it gives."""

from __future__ import annotations

import re

#: "what does it say?", "what's it say on this ticket": the words of the thing, as a whole, the
#: question ending there; not when more is asked of them ("... say about the price", "... say the
#: total is", "... say I should do?", "... say, is the battery low?")
_WHAT_IT_SAYS_RE = re.compile(
    r"\bwhat(?:(?:\s+(?:does|do|did)|)\s+(?:it|this|that|these|those|they|(?:the|this|that|these|those|my|his|her|our|their|your)"
    r"(?:\s+[\w-]+){1,3}?)|'s\s+(?:it|this|that))\s+says?"
    r"(?:\s+(?:on|in)\s+(?:it|this|that|these|the|here|there)(?:\s+[\w-]+){0,2}|\s+(?:here|there))?\s*(?:[?.!]|$)", re.I)
#: The first question word of a clause: "what does it say" must be the clause's question
_FIRST_QUESTION_RE = re.compile(r"\b(?:what|which|who|whose|where|when|how|why)\b", re.I)
#: Steps that answer a question about a picture
_ANSWERING = {"visual-question-answering", "document-question-answering"}


def words_read_off(found: list[tuple[int, int, str]], views: list, labels: list[str], given: list[str]) -> list[tuple[int, int, str]]:
    """A question about a picture that asks what it says becomes reading its words
    (``image-to-text``), once per clause; not beside a recording (``given``: the kinds of the
    files given), which may be what says it ("... and what does the prof say?")."""
    if "audio" in given or "video" in given or "image-to-text" not in labels or not any(label in _ANSWERING for _, _, label in found):
        return found
    reading = labels.index("image-to-text")
    out: list[tuple[int, int, str]] = []
    for i, j, label in found:
        if label in _ANSWERING and _asks_what_it_says(views[i].span.text):
            i, j, label = i, reading, "image-to-text"
        if (i, j, label) not in out:
            out.append((i, j, label))
    return out


def _asks_what_it_says(text: str) -> bool:
    """The clause's question is "what does it say" (not "what's the word limit, and what does the
    prof say?", whose question is the first)."""
    said = _WHAT_IT_SAYS_RE.search(text)
    first = _FIRST_QUESTION_RE.search(text)
    return said is not None and first is not None and first.start() == said.start()


"""End of turn from what was said, not only from silence.

At a short pause the listener recognises the utterance so far; ``TurnDetector.judge`` reads that
partial transcript and says how much longer to wait before the turn counts as over:

- ``complete``: a finished sentence or question (Whisper's closing punctuation, or spaCy's parse:
  a main verb with its clause closed) -> end now, the assistant can answer at once;
- ``incomplete``: a trailing "and"/"but"/"um", a dangling preposition, article or auxiliary, a
  verb still waiting for its object, Whisper's "..." -> wait up to the configured silence;
- ``unsure``: anything else (a fragment, no parse) -> wait a middle time.

The grammar comes from spaCy's shipped English parser (part of speech and dependencies), the
same pipeline the planner loads; without it only punctuation and the closed-class word lists
below decide, and a missing parse makes more turns ``unsure``, never cut.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..english import load_english

#: Hesitations that mean the speaker is still thinking.
FILLERS = {"um", "uh", "er", "erm", "ah", "hmm", "mm", "uhm", "like", "so", "well"}
#: Closed-class words a sentence cannot end on (used when spaCy is not there, and to back it up).
DANGLING = {
    "and", "but", "or", "nor", "because", "so", "if", "then", "than", "that", "which", "who", "whose",
    "the", "a", "an", "my", "your", "his", "her", "its", "our", "their", "this", "these", "those",
    "of", "to", "for", "with", "in", "on", "at", "from", "by", "into", "about", "as", "like", "and/or",
    "is", "are", "was", "were", "be", "can", "could", "would", "should", "will", "shall", "may", "might",
    "must", "do", "does", "did", "have", "has", "had", "please", "also", "while", "although", "though",
    "when", "where", "what", "how", "why", "some", "any", "each", "every", "very", "more", "most",
}
#: Parts of speech a finished clause does not end on.
_OPEN_POS = {"CCONJ", "SCONJ", "ADP", "DET", "AUX", "PART", "INTJ"}
#: Transitive verbs whose missing object means the request goes on ("please describe ...").
_NEEDS_OBJECT = {
    "describe", "tell", "show", "give", "make", "find", "read", "translate", "generate", "create",
    "summarize", "summarise", "draw", "write", "convert", "turn", "send", "put", "set", "take", "get",
    "detect", "classify", "transcribe", "explain", "compare", "answer",
}


def _load_parser():
    """spaCy's shipped English pipeline without NER, shared with the planner; None when it is
    not installed (punctuation and word lists decide then)."""
    return load_english()[0]


@dataclass(frozen=True)
class TurnDecision:
    """How sure we are the speaker has finished, and how long to wait for more speech."""

    verdict: str  # complete | incomplete | unsure
    wait_ms: int  # more silence to require (0: end the turn now)
    reason: str


@dataclass
class TurnDetector:
    """Judges partial transcripts. ``max_wait_ms`` is the configured silence (the upper bound);
    ``unsure_wait_ms`` is the wait when neither grammar nor punctuation decides."""

    max_wait_ms: int = 1200
    unsure_wait_ms: int = 700
    #: The shortest silence that ends a finished sentence. Recognition starts at a shorter pause
    #: (conversation.PAUSE_MS), so on a fast machine the verdict can come before people leave
    #: their usual gap between phrases; the turn still waits this long.
    min_gap_ms: int = 160
    min_confidence: float = -0.6  # Whisper avg log-prob below which "complete" becomes "unsure"
    #: Whisper's probability of the last word below which "complete" becomes "unsure": cut off at
    #: a pause, Whisper ends the sentence with a guess ("Set a timer for" -> "Set a timer for it")
    min_last_word: float = 0.75
    #: The same bar for a clause Whisper left without a full stop: it did not commit to the end
    #: of a sentence there, so a guessed last word ("for it") needs stronger evidence
    min_last_word_unpunctuated: float = 0.9
    use_spacy: bool = True

    def load(self) -> bool:
        """Load the parser now (it takes about a second), so the first turn is not delayed."""
        return self._nlp() is not None

    def _nlp(self):
        return _load_parser() if self.use_spacy else None

    def judge(self, text: str, confidence: float | None = None, last_word: float | None = None) -> TurnDecision:
        """``confidence``: Whisper's mean token log-probability of ``text``; ``last_word``: its
        probability of the last word (both when known)."""
        t = " ".join((text or "").split())
        words = re.findall(r"[a-z']+", t.lower())
        if not words:
            return self._wait("unsure", "nothing recognised yet")
        if re.search(r"(\.\.\.|…|[,;:\-–—])\s*$", t):
            return self._wait("incomplete", "trails off")
        last = words[-1]
        if last in FILLERS or last in DANGLING:
            return self._wait("incomplete", f"ends on '{last}'")
        ends_sentence = bool(re.search(r"[.!?][\"')\]]*$", t))
        nlp = self._nlp()
        if nlp is None:
            if ends_sentence and len(words) >= 2:
                return self._complete(confidence, last_word, "a full stop after a few words")
            return self._wait("unsure", "no parser")
        doc = nlp(t)
        toks = [tok for tok in doc if not tok.is_punct and not tok.is_space]
        if not toks:
            return self._wait("unsure", "no words")
        end = toks[-1]
        if end.pos_ == "VERB" and end.lemma_.lower() in _NEEDS_OBJECT and not any(
            c.dep_ in ("dobj", "obj", "ccomp", "xcomp", "dative", "prt", "attr") for c in end.children
        ):
            return self._wait("incomplete", f"'{end.text}' still needs its object")
        if ends_sentence and len(toks) <= 2 and last not in DANGLING:  # "Thanks.", "Hi there."
            return self._complete(confidence, last_word, "a short complete reply")
        if end.pos_ in _OPEN_POS and not (end.pos_ == "PART" and end.lower_ in ("not", "n't")):
            return self._wait("incomplete", f"ends on a {end.pos_.lower()} '{end.text}'")
        sent = list(doc.sents)[-1]
        verbs = [tok for tok in sent if tok.pos_ in ("VERB", "AUX")]
        question = t.rstrip("\"')] ").endswith("?")
        if ends_sentence and (verbs or question):
            return self._complete(confidence, last_word, "a finished sentence")
        if verbs and sent.root.pos_ in ("VERB", "AUX") and len(toks) >= 3:
            return self._complete(confidence, last_word, "a whole clause (no punctuation)",
                                  self.min_last_word_unpunctuated)
        return self._wait("unsure", "a fragment")

    def _complete(self, confidence: float | None, last_word: float | None, reason: str,
                  min_last_word: float | None = None) -> TurnDecision:
        """Complete, unless Whisper doubted its own words: a garbled last word ("you to" heard
        as "YouTube") reads as a finished sentence, so a low-confidence decode waits a little."""
        if confidence is not None and confidence < self.min_confidence:
            return self._wait("unsure", f"{reason}, but recognised with low confidence ({confidence:.2f})")
        bar = self.min_last_word if min_last_word is None else min_last_word
        if last_word is not None and last_word < bar:
            return self._wait("unsure", f"{reason}, but its last word may be a guess (p={last_word:.2f})")
        return TurnDecision("complete", min(self.min_gap_ms, self.max_wait_ms), reason)

    def _wait(self, verdict: str, reason: str) -> TurnDecision:
        wait = self.max_wait_ms if verdict == "incomplete" else min(self.unsure_wait_ms, self.max_wait_ms)
        return TurnDecision(verdict, wait, reason)


class TurnTaker:
    """At each short pause: recognise the utterance so far (speculatively) and, when the text is
    a finished sentence, end the turn without waiting out the whole configured silence.

    ``recognizer`` is a listener.Recognizer, ``end_turn(start, end, after_ms)`` usually
    VoiceInput.end_turn. ``decisions`` keeps (partial text, TurnDecision) for logs and tests."""

    def __init__(self, recognizer, detector: TurnDetector, end_turn):
        self.recognizer = recognizer
        self.detector = detector
        self.end_turn = end_turn
        self.decisions: list[tuple[str, TurnDecision]] = []
        self.judged = 0  # pauses judged so far (with or without words)

    def on_pause(self, paused) -> None:
        self.recognizer.speculate(paused, self._judge)

    def _judge(self, paused, transcript) -> None:
        try:
            if transcript is None:  # nothing recognised: the configured silence decides
                return
            segments = getattr(transcript, "segments", None) or []
            confidence = min((seg.avg_logprob for seg in segments), default=None)
            last_word = segments[-1].last_word_prob if segments else None
            decision = self.detector.judge(transcript.text, confidence, last_word)
            self.decisions.append((transcript.text, decision))
            if decision.wait_ms < self.detector.max_wait_ms:
                self.end_turn(paused.start, paused.end, decision.wait_ms)
        finally:
            self.judged += 1

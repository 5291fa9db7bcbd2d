"""Which tasks a request asks for, in order: phrase patterns per task type (resources/planner),
context rules (which medium, which kind of question, background versus asking sentences) and, when
no phrase matches at all, MiniLM sentence embeddings against example requests.

Kept apart from linking (offline.py) because detection is where the wording of requests is
handled; linking only looks at data types.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..config import resources_dir
from ..media import Attachment, kind_of
from ..task_types import ARG_KINDS, TASK_TYPES
from .extract import RequestReading, Span


RESOURCE_FILE = resources_dir() / "planner" / "tasks.json"  # works in a checkout, a wheel and the bundle

QA_FAMILY = ("question-answering", "visual-question-answering", "document-question-answering")
#: Steps whose text is a label or a list of labels, not a passage one could answer questions from.
LABELS = ("image-classification", "audio-classification", "tabular-classification", "object-detection", "text-classification", "sentence-similarity")
#: Kinds a task's result offers to later tasks. Detection is also a list of labels (text).
LINK_OUTPUTS: dict[str, tuple[str, ...]] = {"object-detection": ("text",), "sentence-similarity": ("text",)}
TABLE_RE = re.compile(
    r"(?<!coffee )(?<!dining )(?<!kitchen )(?<!side )(?<!pool )(?<!picnic )(?<!wooden )(?<!round )(?<!bedside )(?<!dinner )"
    r"\b(table|tables|tabular|tabulated|spreadsheet)\b(?! of contents)",
    re.I,
)
DOC_WORDS_RE = re.compile(r"\b(document|letter|receipt|invoice|form|page|report|paper|contract|certificate|memo|slide|manual|brochure|menu|flyer|manuscript|pdf|article|notes|newsletter|book|handout|poster)s?\b", re.I)
QUESTION_START_RE = re.compile(r"^(what|which|who|whom|whose|when|where|why|how|is|are|does|do|did|can|could|was|were|will)\b", re.I)
REQUEST_VERB_RE = re.compile(
    r"\b(can you|could you|would you|will you|please|help|i want|i need|i'd like|i would like|let's|assist|need|want|make|create|generate|give|tell|find|show|turn|convert)\b",
    re.I,
)
#: A question the user asks directly ("..., in which year did he ...?"), not a request to do something.
DIRECT_QUESTION_RE = re.compile(
    r"(?:^|[.!?]\s+|\b(?:wondering|wonder|curious|know|asking)[,:]?\s+)((?:in |on |at |for )?(?:what|which|who|whom|whose|when|where|why|how)\b(?! about\b| if\b| not\b)[^.?!]{3,200}\?)",
    re.I,
)
#: "a verbal summary": the speech is made from the summary, though named first.
SPOKEN_ADJ_RE = re.compile(r"(?:auditory|audible|verbal|vocal|spoken|audio|voiced|video|visual)", re.I)
USING_RE = re.compile(r"\b(?:using|with the help of|by means of|via|through|by (?:doing|running|performing|applying)|after)\b", re.I)
#: A sentence that states the situation rather than asking ("I've got...", "I recently recorded...").
BACKGROUND_RE = re.compile(r"^(?:so,? |well,? |hey,? |hi,? )?(?:suppose|imagine|let's say|i've|i have|i had|i recently|i just|i am|i'm|i was|i found|i came|i stumbled|i recorded|i wrote|i took|i made|i got|i received|i own|i downloaded|i captured|i snapped|i uploaded|there's|there is|it's|it is|this is|my)\b", re.I)
#: A sentence that asks for something (rather than telling the background of the request).
ASK_RE = re.compile(
    r"\b(?:can|could|would|will) (?:you|we|i|the assistant)\b|\bplease\b|\bhelp\b|\bassist|\bi(?:'d| would) (?:also |really )?(?:like|love|appreciate)|\bi (?:also )?(?:want|need)\b|\blet's\b|\bhow about\b|\bis it possible\b|\bis there a way\b"
    r"|^\W*(?:and |then |also |finally |lastly |next |now )?(?:generate|create|make|translate|summari[sz]e|identify|detect|segment|transcribe|describe|answer|classify|extract|estimate|edit|change|modify|turn|convert|provide|give|produce|enhance|improve|read|tell|find|draw|analy[sz]e|determine|compare|write|compose)\b",
    re.I,
)
PURPOSE_RE = re.compile(r"\bso (?:that )?(?:i|we) (?:can|could|may|might)\b[^.?!,;]*|\bto help (?:(?:me|us|them|people|children|kids|students|others) )?(?:to )?\w+[^.?!,;]*|\bfor (?:a )?(?:better|easier|easy|quick|clearer) (?:understanding|listening|reading|review|view)\b", re.I)
#: How many characters shorter a generic ("weak") phrase counts when it overlaps a specific one.
WEAK_PENALTY = 12
#: Cosine similarity above which an example request is trusted to name a step's task.
EMBED_THRESHOLD = 0.62


@dataclass
class _Entry:
    key: str
    description: str
    patterns: list[re.Pattern[str]]
    examples: list[str]
    medium: str | None = None
    maps_to: str | None = None
    instruction: bool = False
    guided: bool = False
    weak: list[re.Pattern[str]] = field(default_factory=list)


@dataclass
class Knowledge:
    """The planner's data: pattern tables and word lists loaded from resources/planner."""

    entries: list[_Entry]
    media_words: dict[str, set[str]]
    backref_re: re.Pattern[str]
    parallel_re: re.Pattern[str]
    language_re: re.Pattern[str]
    #: the languages asked for as a list ("into French, Spanish and Italian"), group 0 holds them all
    language_list_re: re.Pattern[str]
    #: a language's name alone
    language_name_re: re.Pattern[str]

    @classmethod
    def load(cls, path: Path = RESOURCE_FILE) -> Knowledge:
        raw = json.loads(path.read_text(encoding="utf-8"))
        langs = "|".join(raw["languages"])
        entries = []
        for key, spec in raw["tasks"].items():
            pats = [re.compile(p.replace("LANG", langs), re.I) for p in spec["patterns"]]
            entry = _Entry(key, spec["description"], pats, spec.get("examples", []), spec.get("medium"), spec.get("maps_to"),
                           bool(spec.get("takes_instruction")), bool(spec.get("guided")))
            entry.weak = [re.compile(p.replace("LANG", langs), re.I) for p in spec.get("weak_patterns", [])]
            entries.append(entry)
        words = lambda xs: re.compile(r"\b(?:" + "|".join(re.escape(x) for x in sorted(xs, key=len, reverse=True)) + r")\b", re.I)  # noqa: E731
        return cls(
            entries,
            {k: set(v) for k, v in raw["media_words"].items()},
            words(raw["backref_words"]),
            words(raw["parallel_words"]),
            re.compile(r"\b(?:in|into|to)\s+(?:the\s+)?(" + langs + r")\b", re.I),
            re.compile(r"\b(?:in|into|to)\s+(?:the\s+)?(?:" + langs + r")(?:\s*(?:,|&|\band\b|\bor\b)\s*(?:(?:also|then)\s+)?"
                       r"(?:(?:in|into|to)\s+)?(?:" + langs + r")\b)*"
                       # ... or as the names of versions: "a French and a German version of it"
                       r"|\b(?:" + langs + r")(?:\s*(?:,|&|\band\b)\s*(?:an?\s+)?(?:" + langs + r"))+\s+(?:versions?|translations?)\b", re.I),
            re.compile(r"\b(?:" + langs + r")\b", re.I),
        )


@lru_cache(maxsize=1)
def knowledge() -> Knowledge:
    return Knowledge.load()


@dataclass
class Detection:
    """A task found in the request, at the place it was asked for."""

    task: str
    start: int
    end: int
    via: str = "pattern"
    instruction: bool = False
    guided: bool = False


class Detector:
    """Finds the steps a request asks for; loads the encoder only when patterns find nothing."""

    def __init__(self, use_embeddings: bool = True):
        self.kb = knowledge()
        self._use_embeddings = use_embeddings
        self._example_vecs: Any = None
        self._example_tasks: list[_Entry] = []
        self.embedding_note: str | None = None if use_embeddings else "sentence embeddings switched off: phrase patterns only"

    def detect(self, reading: RequestReading, attachments: list[Attachment]) -> list[Detection]:
        """The steps asked for, each once, in the order they should run."""
        text = reading.text
        # "..., so I can review the main points": a purpose, not a step
        purposes = [Span(m.group(0), m.start(), m.end()) for m in PURPOSE_RE.finditer(text)]
        found: list[tuple[int, int, _Entry, int]] = []
        for e in self.kb.entries:
            for rx, penalty in [(p, 0) for p in e.patterns] + [(p, WEAK_PENALTY) for p in e.weak]:
                for m in rx.finditer(text):
                    if _inside(m.start(), reading.quotes) or _inside(m.start(), reading.files) or _inside(m.start(), purposes):
                        continue
                    found.append((m.start(), m.end(), e, penalty))
        # Overlapping matches: the longer (more specific) phrase wins.
        found.sort(key=lambda f: (-(f[1] - f[0] - f[3]), f[0]))
        kept: list[tuple[int, int, _Entry]] = []
        for a, b, e, _ in found:
            # a phrase inside a longer one is part of it; phrases that only overlap at their ends
            # ("turn it into speech, transcribe that speech") are two steps; a long phrase (a whole
            # question) never hides the shorter step phrases inside it
            if any(x <= a and b <= y and y - x <= 60 for x, y, _ in kept):
                continue
            if any(not (b <= x or a >= y) and y - x <= 60 and k.key == e.key for x, y, k in kept):
                continue
            kept.append((a, b, e))
        kept.sort(key=lambda f: f[0])
        dets: list[Detection] = []
        for a, b, e in kept:
            task = self._resolve(e, a, b, reading, attachments, dets)
            if task:
                dets.append(Detection(task, a, b, "pattern", e.instruction and task == "image-to-image", e.guided))
        # "change the colour of the car": a question phrase inside an edit instruction is the instruction
        edits = [d for d in dets if d.instruction]

        def inside_edit(d: Detection) -> bool:
            same = [x for x in edits if reading.clause_at(x.start) == reading.clause_at(d.start) and x.start < d.start]
            return bool(same) and ("?" not in reading.clauses[reading.clause_at(d.start)].text or any(d.start - x.end < 40 for x in same))

        dets = [d for d in dets if not (d.task in QA_FAMILY and inside_edit(d))]
        # Sentences that only tell the background ("I've written an article...") name no step,
        # as long as other sentences ask for something.
        asked = [d for d in dets if not BACKGROUND_RE.match(reading.sentence_of(d.start).text.strip()) or _asks(reading, d.start)]
        if asked:
            dets = asked
        dets += self._quoted_questions(reading, attachments, dets)
        if not dets:
            dets += _spoken_question(reading)
        dets += self._embedding_detections(reading, dets, attachments)
        dets.sort(key=lambda d: d.start)
        # Each task once. Where a task is named twice, the mention in a sentence that asks for
        # something counts ("I recorded a noisy lecture... Can you clean it up?").
        out: list[Detection] = []
        asks = {id(d): bool(ASK_RE.search(reading.sentence_of(d.start).text)) and not re.search(r"\b(?:that|this|the same|its)\s+$", text[max(0, d.start - 12) : d.start], re.I)
                for d in dets}
        for d in dets:
            # an enhancement and an instructed edit are two steps, though both are image-to-image
            same = [o for o in out if o.task == d.task and o.guided == d.guided and o.instruction == d.instruction]
            if same:
                o = same[0]
                if asks[id(d)] and not asks[id(o)]:
                    o.start, o.end, asks[id(o)] = d.start, d.end, True
                continue
            out.append(d)
        out.sort(key=lambda d: d.start)
        # One question per sentence: "figure out the main topic of the document" is one document question.
        kept: list[Detection] = []
        for d in out:
            if d.task in QA_FAMILY and any(
                k.task in QA_FAMILY and reading.sentence_of(k.start) == reading.sentence_of(d.start) for k in kept
            ):
                continue
            kept.append(d)
        out = kept
        # "change the background and increase the brightness": one instructed edit, not an edit and an enhancement.
        edit_clauses = {reading.clause_at(d.start) for d in out if d.task == "image-to-image" and d.instruction}
        out = [d for d in out if not (d.task == "image-to-image" and not d.instruction and reading.clause_at(d.start) in edit_clauses)]
        # "a video that visualizes it" is one video, not an image and a video.
        videos = {reading.clause_at(d.start) for d in out if d.task == "text-to-video"}
        out = [
            d for d in out
            if not (d.task == "text-to-image" and reading.clause_at(d.start) in videos
                    and not re.search(r"\b(image|picture|photo|illustration|drawing|painting|poster|graphic)s?\b", reading.text[d.start : d.end], re.I))
        ]
        # A guided generation is the image generation of its sentence, not a second one.
        guided = [d for d in out if d.guided]
        out = [d for d in out if not (d.task == "text-to-image" and any(reading.sentence_of(g.start) == reading.sentence_of(d.start) for g in guided))]
        # "a high-quality recording of it": the clean-up follows its synthesis step directly
        out += _quality_steps(reading, out)
        out.sort(key=lambda d: (d.start, d.via == "quality"))
        # "answer X using depth estimation", "how similar the text in this image is": the step
        # named second makes what the first one reads, so it goes first.
        for i, a in enumerate(out):
            for b in out[i + 1 :]:
                if reading.sentence_of(a.start) != reading.sentence_of(b.start) or a.task == "guided" or b.task == "guided":
                    continue
                between = reading.text[a.end : b.start]
                feeds = set(_outputs(b.task)) & {ARG_KINDS[n] for n in TASK_TYPES[a.task].inputs}
                adjective = bool(re.fullmatch(r"\s*", between)) and bool(SPOKEN_ADJ_RE.fullmatch(reading.text[a.start : a.end]))
                # "translate a summarized version of it": the summary is made first
                adjective = adjective or (bool(re.fullmatch(r"\s*(?:a|an|the)?\s*", between))
                                          and bool(re.match(r"(?:summari[sz]|translat|paraphras|simplifi|condens|transcrib)\w*ed\b", reading.text[b.start : b.end], re.I)))
                using = bool(USING_RE.search(reading.text[max(a.end, b.start - 30) : b.start])) and b.task != "sentence-similarity"
                if feeds and (using or adjective or (a.task == "sentence-similarity" and b.task == "image-to-text" and len(between) < 30)):
                    b.start = a.start - 1
        out.sort(key=lambda d: d.start)
        return out

    def _quoted_questions(self, reading: RequestReading, attachments: list[Attachment], dets: list[Detection]) -> list[Detection]:
        """A quoted question, or a direct question, with no other step around it is a question to answer."""
        out: list[Detection] = []
        if any(d.task in QA_FAMILY for d in dets):
            return out  # the quoted question is the question of that step
        if not (attachments or reading.files or dets or any(len(q.text.split()) >= 8 for q in reading.quotes)):
            return out  # a bare question ("what's the weather like?") is for the chat, not an expert
        for m in DIRECT_QUESTION_RE.finditer(reading.text):
            if _inside(m.start(1), reading.quotes):
                continue
            sent = reading.sentence_of(m.start(1))
            if any(sent.start <= d.start < sent.end for d in dets):
                continue
            out.append(Detection(self._qa_kind("question-answering", reading, m.start(1), attachments, dets), m.start(1), m.end(1), "question"))
        for q in reading.quotes:
            tail = reading.text[q.end : q.end + 2]
            if not (q.text.rstrip().endswith("?") or tail.startswith("?")):
                continue
            sent = reading.sentence_of(max(0, q.start - 1))
            sent = Span(reading.text[sent.start : max(sent.end, q.end + 2)], sent.start, max(sent.end, q.end + 2))
            near = [d for d in dets if sent.start <= d.start < sent.end]
            if re.search(r"\b(?:translat\w*|convert\w*|say|read|paraphras\w*|rephras\w*|turn)\s+(?:this|that|the|it)\b", reading.text[q.end : q.end + 150], re.I):
                continue  # the quote is the text a later step works on
            if re.search(r"\b(?:convert|translat\w*|say|read|paraphras\w*|rephras\w*|turn|summari[sz]e|narrate|speak)\b[^.?!]{0,25}$", reading.text[max(0, q.start - 45) : max(0, q.start - 1)], re.I):
                continue  # "convert 'Are you ready?' into speech": the quote is that step's text
            if any(d.task in QA_FAMILY or d.task == "conversational" for d in near):
                continue
            if near and not re.search(r"\b(answer\w*|know|question|curious|wonder\w*|find out|tell me)\b", sent.text, re.I):
                continue
            out.append(Detection(self._qa_kind("question-answering", reading, q.start, attachments, dets), q.start, q.end, "quote"))
        return out

    def _resolve(self, e: _Entry, a: int, b: int, reading: RequestReading, attachments: list[Attachment], prior: list[Detection]) -> str | None:
        """The task type a matched phrase stands for here, or None when it names nothing doable."""
        medium = self._medium(reading, a, b, attachments, prior)
        key = e.maps_to or e.key
        if e.guided:
            return "guided"
        if e.medium == "enhance":
            return {"image": "image-to-image", "audio": "audio-to-audio"}.get(medium or "")
        if e.medium == "edit":
            # "change X as per my recording" edits the image; "edit the audio to..." is audio work
            if medium == "audio" and re.match(r"\s*(?:the |this |that |my |its )?(?:[\w-]+ )?(audio|recording|sound|voice|speech|song|clip)\b", reading.text[b : b + 40], re.I):
                return "audio-to-audio"
            return "image-to-image" if _has(reading, attachments, prior, "image") else None
        if e.medium in ("classify", "read") and medium in ("image", None, "text") and TABLE_RE.search(reading.text) and _has(reading, attachments, prior, "image"):
            return "tabular-classification"
        if e.medium == "classify":
            if medium == "audio":
                return "audio-classification"
            if medium == "image":
                return "image-classification"
            return "text-classification" if key == "image-classification" and medium == "text" else (key if medium is None else None)
        if e.medium == "read" and re.search(r"descri", reading.text[a:b], re.I) and not self.says(reading, a, "image") and prior \
                and prior[-1].task in TASK_TYPES and "text" in _outputs(prior[-1].task):
            return "text-generation"  # "describe it briefly" after a text step: write about that text
        if e.medium == "read" and re.search(r"\bbased on (?:the|this|that|my) (?:\w+ )?(?:translation|summary|text|answer|label|result|transcript|classification)", reading.clauses[reading.clause_at(a)].text, re.I):
            return "text-generation"  # "a description of the image based on the translation" is written from text
        if e.medium == "read":
            return "automatic-speech-recognition" if medium == "audio" and self.says(reading, a, "audio") else "image-to-text"
        if e.medium == "transcribe":
            return "image-to-text" if medium == "image" and self.says(reading, a, "image") else "automatic-speech-recognition"
        if key in QA_FAMILY:
            return self._qa_kind(key, reading, a, attachments, prior)
        if key == "tabular-classification" and not _has(reading, attachments, prior, "image"):
            return None
        if key in ("image-classification", "image-to-text") and TABLE_RE.search(reading.text) and _has(reading, attachments, prior, "image"):
            return "tabular-classification"
        if key == "text-generation":
            window = reading.text[a:b + 50].lower()
            clause = reading.clauses[reading.clause_at(a)].text
            after_text = bool(prior) and prior[-1].task in TASK_TYPES and "text" in _outputs(prior[-1].task) and not self.says(reading, a, "image")
            if re.search(r"\bdescri(?:be|bing|ption)|\bcaption", window) and medium == "image" and not after_text and not re.search(
                r"\bbased on\b|\bfrom (?:the|this|that) (?:translation|summary|text|answer|label|result|transcript)", clause, re.I
            ):
                return "image-to-text"
        return key

    def _medium(self, reading: RequestReading, a: int, b: int, attachments: list[Attachment], prior: list[Detection]) -> str | None:
        """Which media kind a phrase is about: the nearest media word in its clause, else the files."""
        ci = reading.clause_at(a)
        clause = reading.clauses[ci]
        # "the image's classification", "audio classification": the word right before names it
        before = re.search(r"\b(\w+)(?:'s)?\s+$", reading.text[max(0, a - 20) : a])
        if before:
            kind = next((k for k, ws in self.kb.media_words.items() if before.group(1).lower() in ws), None)
            if kind in ("image", "audio"):
                return kind
        best: tuple[int, str] | None = None
        words = re.sub(r"parts?[- ]of[- ]speech", lambda m: " " * len(m.group(0)), clause.text, flags=re.I)  # grammar, not audio
        for m in re.finditer(r"[\w.]+", words):
            w = m.group(0).lower().rstrip(".")
            pos = clause.start + m.start()
            kind = next((k for k, ws in self.kb.media_words.items() if w in ws), None)
            if kind is None and "." in w:
                kind = kind_of(w)
            if kind is None:
                continue
            dist = (pos - b) if pos >= b else (a - pos) * 1.5 + 5  # words after the verb name its object
            if best is None or dist < best[0]:
                best = (int(dist), kind)
        if best is not None and best[1] != "text":
            return best[1]
        if prior:  # "improve its quality": the thing the last step produced
            last = prior[-1].task
            out = TASK_TYPES[last].output if last in TASK_TYPES else None
            if out in ("image", "audio"):
                return out
            if out == "text" and reading.clause_at(prior[-1].start) == ci:
                return "text"  # "extract the entities and classify them": about the text just made
        kinds = {k for k in (given_kinds(reading, attachments)) if k != "text"}
        if len(kinds) == 1:
            return kinds.pop()
        return best[1] if best else None

    def says(self, reading: RequestReading, a: int, kind: str) -> bool:
        """Whether the clause at ``a`` names a medium of ``kind`` in words (or a file of it)."""
        clause = reading.clauses[reading.clause_at(a)].text.lower()
        words = set(re.findall(r"[\w.]+", clause))
        return bool(words & self.kb.media_words[kind]) or any(kind_of(w) == kind for w in words if "." in w)

    def _qa_kind(self, key: str, reading: RequestReading, a: int, attachments: list[Attachment], prior: list[Detection]) -> str:
        """Question answering over text, a photo or a document image, by what the question is about."""
        if not _has(reading, attachments, prior, "image"):
            return "question-answering"
        sentence = reading.sentence_of(a).text
        image_word = re.search(r"\b(image|picture|photo|scan|pic|screenshot|it)s?\b", sentence, re.I) or any(
            kind_of(w) == "image" for w in re.findall(r"[\w.-]+\.\w+", sentence)
        )
        doc_here = DOC_WORDS_RE.search(sentence)
        doc_any = doc_here or DOC_WORDS_RE.search(reading.text)
        text_given = (
            any(k == "text" for k in given_kinds(reading, attachments))
            or any(len(q.text.split()) >= 8 and not q.text.rstrip().endswith("?") for q in reading.quotes)
            or any(TASK_TYPES[d.task].output == "text" for d in prior if d.task in TASK_TYPES and d.task not in QA_FAMILY + LABELS)
        )
        if key == "visual-question-answering":
            return "document-question-answering" if doc_here and not re.search(r"\b(colou?r|how many|who is)\b", sentence, re.I) else key
        if image_word and (doc_here or (key == "document-question-answering" and (doc_any or not text_given))):
            return "document-question-answering"
        if text_given and not image_word:
            return "question-answering"
        if doc_any and not text_given:
            return "document-question-answering"
        # no text to read the answer from, but a picture: the question is about the picture
        return "visual-question-answering" if image_word or not text_given else "question-answering"

    # ----------------------------------------------------------------------------------------
    # embeddings

    def encoder(self):
        """The sentence encoder with the examples embedded, or None (and a note) when unavailable."""
        if not self._use_embeddings:
            return None
        from .embeddings import EmbeddingModel

        model, why = EmbeddingModel.load()
        if model is None:
            self.embedding_note = f"{why}; planning with phrase patterns only"
            return None
        if self._example_vecs is None:
            entries = [e for e in self.kb.entries if not e.guided]
            texts, owners = [], []
            for e in entries:
                for t in [e.description, *e.examples]:
                    texts.append(t)
                    owners.append(e)
            self._example_vecs = model.encode(texts)
            self._example_tasks = owners
        return model

    def _embedding_detections(self, reading: RequestReading, dets: list[Detection], attachments: list[Attachment]) -> list[Detection]:
        """Steps that ask for something (a request verb) but matched no pattern: nearest example."""
        if dets:  # patterns found the steps; the encoder (tens of ms on a busy CPU) is not needed
            return []
        covered: set[int] = set()
        todo = [
            (i, c) for i, c in enumerate(reading.clauses)
            if i not in covered and REQUEST_VERB_RE.search(c.text) and len(c.text.split()) >= 3
        ]
        if not todo:
            return []
        model = self.encoder()
        if model is None:
            return []
        vecs = model.encode_spans(reading.text, [(c.start, c.end) for _, c in todo])
        out: list[Detection] = []
        for (i, c), v in zip(todo, vecs):
            if v is None:
                continue
            sims = self._example_vecs @ v
            j = int(sims.argmax())
            if float(sims[j]) < EMBED_THRESHOLD:
                continue
            e = self._example_tasks[j]
            task = self._resolve(e, c.start, c.end, reading, attachments, dets + out)
            if task and task != "guided":
                out.append(Detection(task, c.start, c.end, "embedding", e.instruction and task == "image-to-image"))
        return out


_QUALITY_RE = re.compile(r"\b(?:high[- ]quality|enhanced|improved|crisp|clean(?:er)?|noise[- ]free|studio[- ]quality|better[- ]quality|clear(?:er)?)\s+(?:\w+\s+)?(audio|speech|voice|sound|auditory|narration|spoken|image|picture|photo|visual)", re.I)


def _asks(reading: RequestReading, pos: int) -> bool:
    sent = reading.sentence_of(pos).text
    return bool(ASK_RE.search(sent) or re.search(r"\?|\b(curious|wonder\w*|want|wish|hoping|hope|interested|would like|'d like|need|keen|eager|would (?:really )?appreciate|goal|aim|objective|intention|plan is)\b", sent, re.I))


def _spoken_question(reading: RequestReading) -> list[Detection]:
    """'My question is in memo.wav, can you help?': transcribe it, then answer it in a reply."""
    for f in reading.files:
        if kind_of(f.text) == "audio" and re.search(r"\b(question|inquiry|query|request|asking)\b", reading.text, re.I) and ASK_RE.search(reading.text):
            return [Detection("automatic-speech-recognition", f.start, f.end, "spoken"), Detection("conversational", f.end, f.end + 1, "spoken")]
    return []


def _quality_steps(reading: RequestReading, dets: list[Detection]) -> list[Detection]:
    """'a high-quality audio of it': speech synthesis followed by an audio clean-up (images alike)."""
    out: list[Detection] = []
    for d in dets:
        pair = {"text-to-speech": ("audio-to-audio", "audio"), "text-to-image": ("image-to-image", "image")}.get(d.task)
        if pair is None or any(x.task == pair[0] for x in dets):
            continue
        sent = reading.sentence_of(d.start)
        for m in _QUALITY_RE.finditer(sent.text):
            word = m.group(1).lower()
            is_audio = word in ("audio", "speech", "voice", "sound", "auditory", "narration", "spoken")
            if is_audio == (pair[1] == "audio"):
                out.append(Detection(pair[0], d.start, d.end, "quality"))
                break
    return out


def _inside(pos: int, spans: list[Span]) -> bool:
    return any(s.start <= pos < s.end for s in spans)


def _outputs(task: str) -> tuple[str, ...]:
    if task == "guided":
        return ("image",)
    return LINK_OUTPUTS.get(task, (TASK_TYPES[task].output,))


def _input_kinds(task: str) -> set[str]:
    if task == "guided":
        return {"image", "text"}
    return {ARG_KINDS[n] for n in TASK_TYPES[task].inputs}


def given_kinds(reading: RequestReading, attachments: list[Attachment]) -> list[str]:
    """The kinds of the files that came with the request or that it names, one per file."""
    kinds = [a.kind for a in attachments]
    kinds += [k for f in reading.files if (k := kind_of(f.text))]
    return kinds


def _has(reading: RequestReading, attachments: list[Attachment], prior: list[Detection], kind: str) -> bool:
    if kind in given_kinds(reading, attachments):
        return True
    return any(kind in _outputs(d.task) for d in prior if d.task in TASK_TYPES or d.task == "guided")


#: Words that ask what kind of sound a recording is, not what it says (audio classification)
SOUND_LABEL_RE = re.compile(
    r"\b(emotions?|emotional|mood|feelings?|tone|sentiment|genre|kind of sound|type of sound|category|class|commands?)\b", re.I)


#: Words that name which control map ("the pose of", "the edges of"); plain vocabulary, not phrases,
#: and the maps' own short names ("openpose", "M-LSD", "seg map").
CONTROL_WORDS = [
    (re.compile(r"\b(?:(?:open)?pose|skeleton|posture|stance)", re.I), "openpose"),
    (re.compile(r"\bedge|\bcanny|contour", re.I), "canny"),
    (re.compile(r"\b(?:straight )?lines\b|\b(?:straight )?line (?:drawing|map)|\blayout of the walls|\bwireframe|\bm-?lsd\b", re.I), "mlsd"),
    (re.compile(r"\bdepth", re.I), "depth"),
    (re.compile(r"\bboundar|\bsketch|\boutline|\bsoft (?:edge|line)|\bhed\b", re.I), "hed"),
    (re.compile(r"\bnormal", re.I), "normal"),
    (re.compile(r"\bsegment|\bregions|\bseg\b", re.I), "seg"),
]
#: Words that may name a segmentation map but as often refer back to any map ("in the same layout").
GENERIC_CONTROL_WORDS = [(re.compile(r"\blayout|\bcomposition|\bstructure", re.I), "seg")]


def named_control_map(text: str, words: list | None = None) -> str | None:
    """The control map ``text`` names first (a closed class of words: pose, edges, outline, lines,
    depth, normals, segments, layout...), or None when it names none."""
    hits = [(m.start(), kind) for rx, kind in (words or CONTROL_WORDS + GENERIC_CONTROL_WORDS) if (m := rx.search(text))]
    return min(hits)[1] if hits else None


#: Words that name a control map or ask for one, beyond ``CONTROL_WORDS``: with only these, a file
#: and the words for a photo, a request asks for the map, not for a picture drawn from it.
_MAP_REQUEST_WORDS = frozenset(
    "map maps control controlnet surface mlsd canny hed openpose soft straight estimation estimate line lines edge "
    "edges outline pose skeleton depth normal normals segmentation seg please pls plz get need want only nothing "
    "else just give make create generate produce extract show compute run pull detect find thanks ok okay hey hi".split()
)


def draws_nothing(words: list[str], image_words: set[str]) -> bool:
    """Whether a request (its words, file names left out) names nothing to draw besides the control
    map itself ("canny edges of building.jpg", "pose skeleton from this pls"): a generator guided by
    the map would have no subject, so the map alone is asked for."""
    from .wordvecs import STOPWORDS

    for w in words:
        w = w.lower()
        if len(w) < 2 or not w.isalpha() or w in STOPWORDS or w in _MAP_REQUEST_WORDS or w in image_words:
            continue
        if named_control_map(w, CONTROL_WORDS) is None:
            return False
    return True


def control_kind(text: str, request: str = "", kept: str | None = None) -> str:
    """Which control map a clause names; when it names none, the one the whole ``request`` names
    ("take the pose of the girl in this picture and draw a superhero in it"); else the one its
    words keep (``kept``, maps_kept.py), else canny. A word that names one map (pose, depth)
    outranks one that may refer back to any ("the same layout")."""
    for words in (CONTROL_WORDS, GENERIC_CONTROL_WORDS):
        for where in (text, request):
            if kind := named_control_map(where, words):
                return kind
    return kept or "canny"

"""A planner that needs no language model: phrase patterns, sentence embeddings and data types.

The only controllers that run offline here are tiny models that plan nothing correctly, so this
planner reads the request directly: it finds the resources (files, quotes, pasted text), the tasks
asked for in the order they are asked (patterns per task type, and MiniLM embeddings against
example requests for steps no pattern catches), then links each task to an earlier task whose
output has the kind it needs, or to the user's resources. The result goes through the same
``validate_plan`` as an LLM's plan, so everything downstream is shared.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..media import Attachment, kind_of
from ..pipeline.plan import Plan, PlanCheck, placeholder, validate_plan
from ..task_types import TASK_TYPES
from .extract import RequestReading, Span, read_request

log = logging.getLogger(__name__)

RESOURCE_FILE = Path(__file__).resolve().parents[2] / "resources" / "planner" / "tasks.json"

#: Tasks whose text input is the content to process (not a prompt to write from): when no text
#: is given they read it out of an attached image or recording first.
CONTENT_TASKS = {
    "summarization", "translation", "token-classification", "text-classification", "text2text-generation",
    "text-to-speech", "sentence-similarity", "question-answering", "conversational",
}
QA_FAMILY = ("question-answering", "visual-question-answering", "document-question-answering")
#: Kinds a task's result offers to later tasks. Detection is also a list of labels (text).
LINK_OUTPUTS: dict[str, tuple[str, ...]] = {"object-detection": ("text",), "sentence-similarity": ("text",)}
TABLE_RE = re.compile(
    r"(?<!coffee )(?<!dining )(?<!kitchen )(?<!side )(?<!pool )(?<!picnic )(?<!wooden )(?<!round )(?<!bedside )(?<!dinner )"
    r"\b(table|tables|tabular|spreadsheet)\b(?! of contents)",
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
#: "based on the transcription", "according to the label": an instruction taken from an earlier result.
TEXT_REF_RE = re.compile(
    r"\b(?:based on|according to|reflect\w*|using|use|guided by|in line with|inspired by|following|matching)\s+(?:the |this |that |these |those |its |my |our |your )?(?:\w+ )?"
    r"(?:transcri\w*|text|summary|translation|answer|label|labels|result|results|theme|description|caption|details|output|response|category|classification|idea|information|info|findings|words|query|question|points|content|emotions?|preferences|sentiment|mood|instructions?)\b"
    r"|\bapply (?:this|that|the) (?:edit|change|instruction)",
    re.I,
)
#: "a verbal summary": the speech is made from the summary, though named first.
SPOKEN_ADJ_RE = re.compile(r"(?:auditory|audible|verbal|vocal|spoken|audio|voiced)", re.I)
USING_RE = re.compile(r"\b(?:using|with the help of|by means of|via|through|by (?:doing|running|performing|applying))\b", re.I)
#: Words saying a recording holds what a step needs ("the question in my recording").
SPOKEN_SPEC_RE = re.compile(r"\b(?:question|command|instructions?|directions?|alterations?|amendments?|changes|query|request|ideas|preferences)s?\b", re.I)
#: A sentence that states the situation rather than asking ("I've got...", "I recently recorded...").
BACKGROUND_RE = re.compile(r"^(?:so,? |well,? |hey,? |hi,? )?(?:i've|i have|i had|i recently|i just|i am|i'm|i was|i found|i came|i stumbled|i recorded|i wrote|i took|i made|i got|i received|i own|i downloaded|i captured|i snapped|i uploaded|there's|there is|it's|it is|this is|my)\b", re.I)
#: A sentence that asks for something (rather than telling the background of the request).
ASK_RE = re.compile(
    r"\b(?:can|could|would|will) (?:you|we|i|the assistant)\b|\bplease\b|\bhelp\b|\bassist|\bi(?:'d| would) (?:also |really )?(?:like|love|appreciate)|\bi (?:also )?(?:want|need)\b|\blet's\b|\bhow about\b|\bis it possible\b|\bis there a way\b"
    r"|^\W*(?:and |then |also |finally |lastly |next |now )?(?:generate|create|make|translate|summari[sz]e|identify|detect|segment|transcribe|describe|answer|classify|extract|estimate|edit|change|modify|turn|convert|provide|give|produce|enhance|improve|read|tell|find|draw|analy[sz]e|determine|compare|write|compose)\b",
    re.I,
)
PURPOSE_RE = re.compile(r"\bso (?:that )?(?:i|we) (?:can|could|may|might)\b[^.?!,;]*|\bfor (?:a )?(?:better|easier|easy|quick|clearer) (?:understanding|listening|reading|review|view)\b", re.I)
#: How many characters shorter a generic ("weak") phrase counts when it overlaps a specific one.
WEAK_PENALTY = 12
#: Cosine similarity above which an example request is trusted to name a step's task.
EMBED_THRESHOLD = 0.62
MEDIA_NAMES = {"image", "audio", "video", "text"}
_GUIDES = [
    (re.compile(r"pose", re.I), "openpose"),
    (re.compile(r"edge|outline", re.I), "canny"),
    (re.compile(r"lines", re.I), "mlsd"),
    (re.compile(r"depth", re.I), "depth"),
    (re.compile(r"boundar", re.I), "hed"),
    (re.compile(r"normal", re.I), "normal"),
    (re.compile(r"layout|composition|structure", re.I), "seg"),
]


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


@dataclass
class _Node:
    id: int
    task: str
    args: dict[str, str]
    outputs: tuple[str, ...]
    pos: int


@dataclass
class _State:
    """The plan being built: nodes so far and which resources they used."""

    reading: RequestReading
    attachments: list[Attachment]
    nodes: list[_Node] = field(default_factory=list)
    used_quotes: set[int] = field(default_factory=set)
    bridges: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    pending: list[Detection] = field(default_factory=list)

    def producer(self, kind: str, before: int | None = None, exclude: set[int] | None = None) -> _Node | None:
        for n in reversed(self.nodes):
            if kind in n.outputs and (exclude is None or n.id not in exclude):
                return n
        return None


class OfflinePlanner:
    """Plans a request with no language model; typically 1-30 ms per request on a laptop CPU."""

    def __init__(self, use_embeddings: bool = True):
        self.kb = knowledge()
        self._use_embeddings = use_embeddings
        self._example_vecs: Any = None
        self._example_tasks: list[_Entry] = []
        self.embedding_note: str | None = None if use_embeddings else "sentence embeddings switched off: phrase patterns only"

    # ----------------------------------------------------------------------------------------
    # public

    def plan(self, request: str, attachments: list[Attachment] | None = None) -> PlanCheck:
        """A validated plan for ``request`` (empty with a note when nothing can be planned)."""
        attachments = list(attachments or [])
        try:
            return self._plan(request, attachments)
        except Exception as e:  # a planner bug must not take the session down: chat instead
            log.exception("offline planner failed")
            return _empty(f"the offline planner could not read this request ({type(e).__name__}); answering as chat")

    def warm_up(self) -> str | None:
        """Load the embedding model and embed the examples now; returns why not, if it can't."""
        self._embedder()
        return self.embedding_note

    # ----------------------------------------------------------------------------------------
    # steps

    def _plan(self, request: str, attachments: list[Attachment]) -> PlanCheck:
        if not isinstance(request, str) or not request.strip():
            return _empty("the request is empty: nothing to plan")
        reading = read_request(request)
        if not reading.english:
            return _empty("the offline planner understands requests in English only; nothing was planned")
        dets = self._detect(reading, attachments)
        if not dets:
            return _empty("no task an expert can do was found in the request; it will be answered as chat", reading.notes)
        state = _State(reading, attachments, notes=list(reading.notes))
        self._build(dets, state)
        if not state.nodes:
            return _empty("the tasks asked for need files that were not given; attach them and ask again", state.notes)
        check = self._validate(state)
        if self.embedding_note and check.plan is not None:
            check.plan.notes.append(self.embedding_note)
        return check

    def _detect(self, reading: RequestReading, attachments: list[Attachment]) -> list[Detection]:
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
            # a long phrase (a whole question) never hides the shorter step phrases inside it
            if any(not (b <= x or a >= y) and y - x <= 60 for x, y, _ in kept):
                continue
            kept.append((a, b, e))
        kept.sort(key=lambda f: f[0])
        dets: list[Detection] = []
        for a, b, e in kept:
            task = self._resolve(e, a, b, reading, attachments, dets)
            if task:
                dets.append(Detection(task, a, b, "pattern", e.instruction and task == "image-to-image", e.guided))
        edits = [d for d in dets if d.instruction]
        dets = [
            d for d in dets
            if not (d.task in QA_FAMILY and any(reading.clause_at(x.start) == reading.clause_at(d.start) and x.start < d.start for x in edits)
                    and "?" not in reading.clauses[reading.clause_at(d.start)].text)
        ]
        # Sentences that only tell the background ("I've written an article...") name no step,
        # as long as other sentences ask for something.
        asked = [d for d in dets if not BACKGROUND_RE.match(reading.sentence_of(d.start).text.strip()) or _asks(reading, d.start)]
        if asked:
            dets = asked
        dets += self._quoted_questions(reading, attachments, dets)
        dets += self._embedding_detections(reading, dets, attachments)
        dets.sort(key=lambda d: d.start)
        # Each task once. Where a task is named twice, the mention in a sentence that asks for
        # something counts ("I recorded a noisy lecture... Can you clean it up?").
        out: list[Detection] = []
        asks = {id(d): bool(ASK_RE.search(reading.sentence_of(d.start).text)) for d in dets}
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
                feeds = set(_outputs(b.task)) & {("text" if n in ("text", "context", "text2") else n) for n in TASK_TYPES[a.task].inputs}
                adjective = bool(re.fullmatch(r"\s*", between)) and bool(SPOKEN_ADJ_RE.fullmatch(reading.text[a.start : a.end]))
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
            return "image-to-image" if medium in ("image", None) and _has(reading, attachments, prior, "image") else None
        if e.medium in ("classify", "read") and medium in ("image", None) and TABLE_RE.search(reading.text) and _has(reading, attachments, prior, "image"):
            return "tabular-classification"
        if e.medium == "classify":
            if medium == "audio":
                return "audio-classification"
            if medium == "image":
                return "image-classification"
            return "text-classification" if key == "image-classification" and medium == "text" else (key if medium is None else None)
        if e.medium == "read" and re.search(r"descri", reading.text[a:b], re.I) and not self._says(reading, a, "image") and prior \
                and prior[-1].task in TASK_TYPES and "text" in _outputs(prior[-1].task):
            return "text-generation"  # "describe it briefly" after a text step: write about that text
        if e.medium == "read" and re.search(r"\bbased on (?:the|this|that|my) (?:\w+ )?(?:translation|summary|text|answer|label|result|transcript|classification)", reading.clauses[reading.clause_at(a)].text, re.I):
            return "text-generation"  # "a description of the image based on the translation" is written from text
        if e.medium == "read":
            return "automatic-speech-recognition" if medium == "audio" and self._says(reading, a, "audio") else "image-to-text"
        if e.medium == "transcribe":
            return "image-to-text" if medium == "image" and self._says(reading, a, "image") else "automatic-speech-recognition"
        if key in QA_FAMILY:
            return self._qa_kind(key, reading, a, attachments, prior)
        if key == "tabular-classification" and not _has(reading, attachments, prior, "image"):
            return None
        if key in ("image-classification", "image-to-text") and TABLE_RE.search(reading.text) and _has(reading, attachments, prior, "image"):
            return "tabular-classification"
        if key == "text-generation":
            window = reading.text[a:b + 50].lower()
            clause = reading.clauses[reading.clause_at(a)].text
            after_text = bool(prior) and prior[-1].task in TASK_TYPES and "text" in _outputs(prior[-1].task) and not self._says(reading, a, "image")
            if re.search(r"\bdescri(?:be|bing|ption)|\bcaption", window) and medium == "image" and not after_text and not re.search(
                r"\bbased on\b|\bfrom (?:the|this|that) (?:translation|summary|text|answer|label|result|transcript)", clause, re.I
            ):
                return "image-to-text"
        return key

    def _medium(self, reading: RequestReading, a: int, b: int, attachments: list[Attachment], prior: list[Detection]) -> str | None:
        """Which media kind a phrase is about: the nearest media word in its clause, else the files."""
        ci = reading.clause_at(a)
        clause = reading.clauses[ci]
        best: tuple[int, str] | None = None
        for m in re.finditer(r"[\w.]+", clause.text):
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
        kinds = {k for k in (_att_kinds(reading, attachments)) if k != "text"}
        if len(kinds) == 1:
            return kinds.pop()
        return best[1] if best else None

    def _says(self, reading: RequestReading, a: int, kind: str) -> bool:
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
            any(k == "text" for k in _att_kinds(reading, attachments))
            or any(len(q.text.split()) >= 8 for q in reading.quotes)
            or any(TASK_TYPES[d.task].output == "text" for d in prior if d.task in TASK_TYPES and d.task not in QA_FAMILY)
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

    def _embedder(self):
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
        model = self._embedder()
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

    # ----------------------------------------------------------------------------------------
    # linking

    def _build(self, dets: list[Detection], st: _State) -> None:
        """Add the steps in the order asked; a step whose input a later step makes waits for it.

        A waiting step goes right after the step it waits for (not to the end), so the steps
        after it still chain to it. Each step waits at most once, so the loop ends.
        """
        pending = list(dets)
        waited: set[int] = set()
        while pending:
            d = pending.pop(0)
            # kinds a later step makes from something else (a step that turns text into text
            # cannot be waited for by another text step: they would wait for each other)
            later = {k for p in pending for k in _outputs(p.task) if k not in _input_kinds(p.task)}
            if id(d) in waited:
                later = set()
            st.pending = pending
            result = self._add(d, st, later)
            if result == "defer":
                waited.add(id(d))
                needs = _input_kinds(d.task)
                j = next((i for i, p in enumerate(pending) if (set(_outputs(p.task)) - _input_kinds(p.task)) & needs), len(pending) - 1)
                pending.insert(j + 1, d)

    def _add(self, d: Detection, st: _State, later: set[str], dry: bool = False) -> str:
        """Add one task with its arguments; 'defer' when its input is made by a later step."""
        r = st.reading
        ci = r.clause_at(d.start)
        clause = r.clauses[ci]
        sentence = r.sentence_of(d.start)
        after = r.text[d.start : clause.end]
        backref = bool(self.kb.backref_re.search(clause.text)) or bool(re.search(r"\b(it|its|them|this|that|these|those)\b", after, re.I))
        parallel = bool(self.kb.parallel_re.search(clause.text)) and not re.search(
            r"\b(result\w*|generated|output|answer|summary|translation|transcri\w+|description|caption|label|modified|edited|new|newly|enhanced|processed|altered|updated|transformed|created|segmented)\b",
            clause.text, re.I)
        if d.task == "guided":
            return self._add_guided(d, st, later, dry)
        spec = TASK_TYPES[d.task]
        args: dict[str, str] = {}
        for name in spec.inputs:
            kind = "text" if name in ("text", "context", "text2") else name
            if kind != "text":
                v = self._file_input(kind, d, st, clause, parallel, later)
            elif d.task in ("visual-question-answering", "document-question-answering"):
                v = self._question(d, st, clause, sentence)
            elif d.task == "question-answering":
                v = self._question(d, st, clause, sentence)
                ctx = self._text_input(d, st, clause, backref, parallel, later, dry, allow_quote_question=False)
                if ctx == "defer":
                    return "defer"
                if ctx is not None:
                    args["context"] = ctx
            else:
                v = self._text_input(d, st, clause, backref, parallel, later, dry)
            if v == "defer":
                return "defer"
            if v is None:
                if not dry:
                    st.notes.append(f"skipped {d.task}: it needs {kind} input and none was given")
                return "skip"
            args[name] = v
        if dry:
            return "ok"
        text_ref = TEXT_REF_RE.search(clause.text)
        prod = st.producer("text")
        spoken = self._spoken_input(d, st, clause)
        if spoken is not None and not dry:
            # "the changes I recorded in memo.wav", "the question in the audio": the words come from speech
            prod, text_ref = self._push_or_get_asr(st, spoken, d.start), True
        if d.task == "image-to-image" and d.instruction:
            args["text"] = placeholder(prod.id) if (text_ref and prod) else _instruction(r.text, d, clause)
        if d.task in ("visual-question-answering", "document-question-answering") and text_ref and prod and not any(
            clause.start <= q.start < clause.end for q in r.quotes
        ):
            args["text"] = placeholder(prod.id)
        if d.task == "sentence-similarity":
            other = self._second_text(d, st, clause, args.get("text", ""))
            if other:
                args["text2"] = other
        if d.task == "translation":
            m = self.kb.language_re.search(clause.text) or self.kb.language_re.search(sentence.text) or self.kb.language_re.search(r.text)
            if m:
                args["target_language"] = m.group(1).capitalize()
        self._push(st, d.task, args, d.start)
        return "ok"

    def _spoken_input(self, d: Detection, st: _State, clause: Span) -> str | None:
        """The audio file whose speech gives this step's instruction or question, if the request says so."""
        if d.task not in ("image-to-image", "visual-question-answering", "document-question-answering", "question-answering"):
            return None
        if d.task == "image-to-image" and not d.instruction:
            return None
        r = st.reading
        if any(clause.start <= q.start < clause.end for q in r.quotes):
            return None
        for f in r.files:
            if kind_of(f.text) != "audio":
                continue
            sent = r.sentence_of(f.start).text
            if SPOKEN_SPEC_RE.search(sent) or SPOKEN_SPEC_RE.search(clause.text) and re.search(r"\b(audio|recording|voice|speech|spoken)\b", clause.text, re.I):
                return _attachment_value(f.text, "audio", st)
        return None

    def _push_or_get_asr(self, st: _State, audio: str, pos: int) -> _Node:
        for n in st.nodes:
            if n.task in ("automatic-speech-recognition", "audio-classification") and n.args.get("audio") == audio:
                return n
        return st.nodes[self._bridge(st, "automatic-speech-recognition", "audio", audio, pos)]

    def _bridge(self, st: _State, reader: str, kind: str, src: str, pos: int) -> int:
        """A reading step (speech or image to text) that a text task needs first; made once.

        The words name the reader: for an image, its label(s) -> classification, the objects ->
        detection, otherwise a caption or the text in it; for audio, its emotion, mood or kind of
        sound -> audio classification, otherwise a transcript."""
        if kind == "audio":
            sent = st.reading.sentence_of(pos).text
            if re.search(r"\b(emotions?|emotional|mood|feelings?|tone|sentiment|genre|kind of sound|type of sound|category|class)\b", sent, re.I):
                reader = "audio-classification"
        if kind == "image" and TABLE_RE.search(st.reading.text):
            reader = "tabular-classification"
        elif kind == "image":
            ci = st.reading.clause_at(pos)
            near = " ".join(c.text for c in st.reading.clauses[max(0, ci - 1) : ci + 1])
            if re.search(r"\b(label|labels|category|class|classification|kind of)\b", near, re.I):
                reader = "image-classification"
            elif re.search(r"\b(objects|items|things|names)\b", near, re.I):
                reader = "object-detection"
        existing = next((n for n in st.nodes if n.task == reader and n.args.get(kind) == src), None)
        if existing is not None:
            return existing.id
        if reader not in st.bridges:
            st.bridges[reader] = self._push(st, reader, {kind: src}, pos).id
        return st.bridges[reader]

    def _push(self, st: _State, task: str, args: dict[str, str], pos: int) -> _Node:
        same = next((n for n in st.nodes if n.task == task and n.args == args), None)
        if same is not None:  # the same step on the same input (a reading step made earlier)
            return same
        node = _Node(len(st.nodes), task, args, _outputs(task), pos)
        st.nodes.append(node)
        return node

    def _file_input(self, kind: str, d: Detection, st: _State, clause: Span, parallel: bool, later: set[str]) -> str | None:
        r = st.reading
        own = [f for f in r.files if clause.start <= f.start < clause.end and kind_of(f.text) == kind]
        prod = st.producer(kind)
        if own and not (prod and re.search(r"\b(edited|modified|new|generated|resulting|enhanced|processed|altered|updated|segmented)\b", clause.text, re.I)):
            return _attachment_value(own[0].text, kind, st)
        if prod and not parallel:
            return placeholder(prod.id)
        att = _nearest_file(kind, d.start, st)
        if att:
            return att
        if prod:
            return placeholder(prod.id)
        if kind in later:
            return "defer"
        return None

    def _text_input(self, d: Detection, st: _State, clause: Span, backref: bool, parallel: bool, later: set[str], dry: bool, allow_quote_question: bool = True) -> str | None:
        r = st.reading
        own_quotes = [i for i, q in enumerate(r.quotes) if clause.start <= q.start < clause.end and i not in st.used_quotes]
        if not allow_quote_question:
            own_quotes = [i for i in own_quotes if not r.quotes[i].text.rstrip().endswith("?")]
        prod = st.producer("text")
        strong_ref = re.search(r"\b(result|generated|output|answer|summary|summarized|translation|translated|transcri\w+|description|caption|label|response|it|them)\b", clause.text, re.I)
        if own_quotes and not (prod and strong_ref and not parallel and r.quotes[own_quotes[0]].start > d.start + 80):
            if not dry:
                st.used_quotes.add(own_quotes[0])
            return r.quotes[own_quotes[0]].text
        if prod and not parallel:
            return placeholder(prod.id)
        text_file = _nearest_file("text", d.start, st)
        if text_file:
            return text_file
        if d.task in CONTENT_TASKS and not prod and "text" in later and _reader_follows(d, st):
            return "defer"  # a step named later reads the file ("summarize the text in this scan")
        if d.task in CONTENT_TASKS:
            for kind, reader in (("audio", "automatic-speech-recognition"), ("image", "image-to-text")):
                if self._says(r, d.start, kind) and (not prod or parallel):
                    src = _nearest_file(kind, d.start, st)
                    if src:
                        return "ok" if dry else placeholder(self._bridge(st, reader, kind, src, d.start))
        free = [
            i for i, q in enumerate(r.quotes)
            if i not in st.used_quotes and (allow_quote_question or not q.text.rstrip().endswith("?"))
            and (d.task in ("translation", "text-to-speech", "conversational") or not q.text.rstrip().endswith("?"))
        ]
        if free and d.task in CONTENT_TASKS | {"text-to-image", "text-to-video", "conversational", "text-generation"}:
            if not dry:
                st.used_quotes.add(free[0])
            return r.quotes[free[0]].text
        if prod:
            return placeholder(prod.id)
        if "text" in later and d.task in CONTENT_TASKS:
            return "defer"
        if d.task in CONTENT_TASKS:
            if r.subject:
                return r.subject
            for kind, reader in (("image", "image-to-text"), ("audio", "automatic-speech-recognition")):
                src = _nearest_file(kind, d.start, st, before_only=True)
                if src:
                    return "ok" if dry else placeholder(self._bridge(st, reader, kind, src, d.start))
            if d.task in ("summarization", "token-classification", "text-classification", "text2text-generation", "translation", "question-answering"):
                return r.subject or _prompt_text(r.text)
            return _prompt_text(clause.text) if d.task != "question-answering" else None
        if d.task == "text-to-video" and not prod and self._says(r, d.start, "image"):
            # "turn this photo of a quote into a video": the video is made from what the image says
            src = _nearest_file("image", d.start, st, before_only=True)
            if src:
                return "ok" if dry else placeholder(self._bridge(st, "image-to-text", "image", src, d.start))
        if d.task in ("text-to-image", "text-to-video") and not prod:
            # "visualize the scene I described in this recording": the speech is the description
            src = _nearest_file("audio", d.start, st, before_only=True)
            if src:
                return "ok" if dry else placeholder(self._bridge(st, "automatic-speech-recognition", "audio", src, d.start))
        return r.subject or _prompt_text(r.text if d.task in ("conversational", "text-generation") else clause.text)

    def _question(self, d: Detection, st: _State, clause: Span, sentence: Span) -> str:
        r = st.reading
        for i, q in enumerate(r.quotes):
            if i not in st.used_quotes and q.text.rstrip().endswith("?"):
                st.used_quotes.add(i)
                return q.text
        for i, q in enumerate(r.quotes):
            if i not in st.used_quotes and (clause.start <= q.start < clause.end) and QUESTION_START_RE.match(q.text):
                st.used_quotes.add(i)
                return q.text
        for m in re.finditer(r"[^.?!]*\?", r.text):
            s = m.group(0).strip()
            s = re.sub(r"^(?:and |also |but |so )?(?:can|could|would|will) you (?:please )?(?:tell me|let me know|help me (?:find out|figure out|understand))\s*(?:,\s*)?", "", s, flags=re.I)
            if QUESTION_START_RE.match(s) and not re.match(r"^(can|could|would|will) you\b", s, re.I):
                return s[0].upper() + s[1:]
        return _prompt_text(clause.text)

    def _second_text(self, d: Detection, st: _State, clause: Span, first: str) -> str | None:
        r = st.reading
        for i, q in enumerate(r.quotes):
            if i not in st.used_quotes and q.text != first:
                st.used_quotes.add(i)
                return q.text
        prod = st.producer("text")
        if prod is not None and placeholder(prod.id) != first:
            return placeholder(prod.id)
        earlier = [n for n in st.nodes if "text" in n.outputs and placeholder(n.id) != first]
        if earlier:
            return placeholder(earlier[-1].id)
        return None

    def _add_guided(self, d: Detection, st: _State, later: set[str], dry: bool) -> str:
        r = st.reading
        window = r.text[d.start : d.end]
        kind = next((k for rx, k in _GUIDES if rx.search(window)), "canny")
        control = next((n for n in st.nodes if n.task == f"{kind}-control"), None)
        if control is None:
            src = _nearest_file("image", d.start, st) or (placeholder(p.id) if (p := st.producer("image")) else None)
            if src is None:
                return "defer" if "image" in later else "skip"
            if dry:
                return "ok"
            control = self._push(st, f"{kind}-control", {"image": src}, d.start)
        if dry:
            return "ok"
        clause = r.clauses[r.clause_at(d.start)]
        quotes = [q.text for i, q in enumerate(r.quotes) if i not in st.used_quotes and clause.start <= q.start < clause.end]
        self._push(st, f"{kind}-text-to-image", {"text": quotes[0] if quotes else _prompt_text(clause.text), "image": placeholder(control.id)}, d.start)
        return "ok"

    def _validate(self, st: _State) -> PlanCheck:
        items = [{"task": n.task, "id": n.id, "dep": [], "args": n.args} for n in st.nodes]
        check = validate_plan(items, _plan_attachments(st), source="offline")
        tries = 0
        while not check.ok and tries < 5 and items:
            # Drop the tasks the validator named, and tasks that used them, then try again.
            bad = {int(x) for e in check.errors for x in re.findall(r"task (\d+)", e)} or {items[-1]["id"]}
            items = [it for it in items if it["id"] not in bad and not any(f"<GENERATED>-{b}" in v for b in bad for v in it["args"].values())]
            st.notes.append("dropped steps the validator rejected: " + "; ".join(check.errors)[:300])
            check = validate_plan(items, _plan_attachments(st), source="offline")
            tries += 1
        if check.plan is not None:
            check.plan.notes.extend(st.notes)
        return check


# --------------------------------------------------------------------------------------------
# helpers


_QUALITY_RE = re.compile(r"\b(?:high[- ]quality|enhanced|improved|crisp|clean(?:er)?|noise[- ]free|studio[- ]quality|better[- ]quality|clear(?:er)?)\s+(?:\w+\s+)?(audio|speech|voice|sound|auditory|narration|spoken|image|picture|photo|visual)", re.I)


def _asks(reading: RequestReading, pos: int) -> bool:
    sent = reading.sentence_of(pos).text
    return bool(ASK_RE.search(sent) or re.search(r"\?|\b(curious|wonder\w*|want|wish|hoping|hope|interested|would like|'d like|need|keen|eager|would (?:really )?appreciate)\b", sent, re.I))


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


def _empty(note: str, more: list[str] | None = None) -> PlanCheck:
    return PlanCheck(Plan([], "offline", [*(more or []), note]))


def _inside(pos: int, spans: list[Span]) -> bool:
    return any(s.start <= pos < s.end for s in spans)


def _outputs(task: str) -> tuple[str, ...]:
    if task == "guided":
        return ("image",)
    return LINK_OUTPUTS.get(task, (TASK_TYPES[task].output,))


def _reader_follows(d: Detection, st: _State) -> bool:
    """A step later in the same sentence reads a file into text (what ``d`` should work on)."""
    sent = st.reading.sentence_of(d.start)
    return any(
        p.start > d.start and sent.start <= p.start < sent.end and p.task != "guided"
        and _input_kinds(p.task) & {"image", "audio", "video"} and "text" in _outputs(p.task)
        for p in st.pending
    )


def _input_kinds(task: str) -> set[str]:
    if task == "guided":
        return {"image", "text"}
    return {"text" if n in ("text", "context", "text2") else n for n in TASK_TYPES[task].inputs}


def _att_kinds(reading: RequestReading, attachments: list[Attachment]) -> list[str]:
    kinds = [a.kind for a in attachments]
    kinds += [k for f in reading.files if (k := kind_of(f.text))]
    return kinds


def _has(reading: RequestReading, attachments: list[Attachment], prior: list[Detection], kind: str) -> bool:
    if kind in _att_kinds(reading, attachments):
        return True
    return any(kind in _outputs(d.task) for d in prior if d.task in TASK_TYPES or d.task == "guided")


def _plan_attachments(st: _State) -> list[Attachment]:
    return st.attachments


def _attachment_value(name: str, kind: str, st: _State) -> str | None:
    """The attachment a file name in the request stands for (by name, else the only one of its kind)."""
    low = Path(name).name.lower()
    for a in st.attachments:
        if a.path.name.lower() == low:
            return str(a.path)
    same = [a for a in st.attachments if a.kind == kind]
    if len(same) == 1:
        return str(same[0].path)
    return None


def _nearest_file(kind: str, pos: int, st: _State, before_only: bool = False) -> str | None:
    """The file of ``kind`` named closest before ``pos`` (else after), else the first attached
    that the request does not name (``before_only``: never one named after ``pos``)."""
    named = [f for f in st.reading.files if kind_of(f.text) == kind]
    before = [f for f in named if f.start <= pos]
    pick = before[-1] if before else (named[0] if named and not before_only else None)
    if before_only and named and not before:
        return None
    if pick is not None:
        v = _attachment_value(pick.text, kind, st)
        if v:
            return v
    for a in st.attachments:
        if a.kind == kind:
            return str(a.path)
    return None


_LEAD_RE = re.compile(
    r"^\W*(?:(?:and|also|then|finally|lastly|next|afterwards|additionally|please|so|now)\b\W*)*"
    r"(?:(?:can|could|would|will) you(?: please)?(?: also)?(?: help me| assist me(?: in)?)?|i(?:'d| would) like (?:you )?to|i want (?:you )?to|i need (?:you )?to|help me|please)?\s*",
    re.I,
)


def _prompt_text(text: str) -> str:
    """A step's words without the polite lead-in, as the text a generation task works from."""
    s = _LEAD_RE.sub("", text.strip()).strip(" ,;")
    return (s[0].upper() + s[1:]) if s else text.strip()


def _instruction(text: str, d: Detection, clause: Span) -> str:
    """The edit instruction: the step from its verb to the end of its clause."""
    s = text[d.start : clause.end].strip(" ,.;?!")
    s = re.sub(r"\s+", " ", s)
    return (s[0].upper() + s[1:]) if s else "Edit the image"

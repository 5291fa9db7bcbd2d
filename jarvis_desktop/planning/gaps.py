"""Words left out (ellipsis): "translate 'good night' to Spanish. Italian too", "caption the first
photo, then the second", "what's the sentiment of 'A' and 'B'", "summarise notes.txt and read it
to me, then the same with diary.txt".

Grammar, not phrases: a stretch after a step with no verb of its own, opened by a connective ("and",
"then", "now", "also", "same with", a comma), that holds only a new argument of a kind the step read
(a quoted text, a file, a language), asks for that step again on it, with the steps done to its
result ("... and read it out, same with the second"). Without a verb nothing new is asked, so the
step finder has no step to find there: the step of the words before is the one the words left out.
A thing alone asked after a question ("what's the total on this receipt? and the tax?") is that
question again, of the thing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..media import kind_of
from ..pipeline.plan import PLACEHOLDER_RE, placeholder, placeholder_ids
from .each import ALL_OF_THEM_RE
from .extract import Span
from .given_text import outside_quotes
from .plan_state import PlanNode, PlanState
from .references import GIVEN_NOUNS, KIND_NOUNS
from .self_repairs import says_a_correction

#: Words that open a fragment: what comes after them shares the step said before
_OPENERS = {"and", "then", "now", "also", "plus", "same", ",", "what", "how"}
#: ... or the end of a sentence, when the fragment says it adds ("Italian too"; a language alone
#: after a translation may be the one the text is in: "to English. German.")
_SENTENCE_ENDS = {".", ";", "?", "!"}
_ADDED_RE = re.compile(r"\b(?:too|also|as\s+well)\b", re.I)
#: Words a fragment may hold besides its argument without asking anything new ("do the same")
_LIGHT_VERBS = {"do"}
#: Words that make the fragment a choice, a contrast or a source ("'A' or 'B'", "not in French",
#: "from Spanish"): no copy of the step
_BLOCKERS = {"not", "no", "n't", "never", "instead", "rather", "except", "or", "nor", "but", "from", "than", "without"}
#: Steps that answer a question asked of a file or a passage
_QUESTION_STEPS = frozenset({"visual-question-answering", "document-question-answering", "question-answering"})
#: "... ? and the garage?", "what about the tax?": a thing alone, asked of as the question before
_ASKED_OF_RE = re.compile(r"(?:(?<=[?.!])|^)\s*(?:(?:and|also|plus|then|what\s+about|how\s+about)\b[\s,]*)+(?P<np>[^?.!]{1,40})\?", re.I)
#: Words before a noun that is not what a question asks about: the file ("this photo"), what is asked ("what colour")
_NOT_THE_THING = {"this", "these", "my", "what", "which", "whose", "many", "much"}
#: "this one", "the other one", "the next picture", "the last", "the rest": another of the files given
_POINTER_RE = re.compile(r"\b(?:(?P<all>the\s+(?:rest|others|other\s+ones))|(?P<last>the\s+last)|"
                         r"(?:this|that|the\s+(?:other|next|second|third|remaining))(?:\s+(?:one|(?P<noun>[a-z]+)))?)\b", re.I)
#: "do the same with ...", "same for ...", "the same thing to ...": the steps before, on another input
_SAME_AGAIN_RE = re.compile(r"^[\s,.;:!?]*(?:(?:and|then|now|so|ok|okay|also|plus|um|uh|please)\b[\s,]*)*"
                            r"(?:do\s+)?(?:the\s+)?same(?:\s+thing)?(?:\s+again)?\s+(?:with|for|to|on)\b", re.I)


@dataclass
class _Fragment:
    """A stretch with no verb of its own after a step: where it opens and the argument it holds."""

    start: int
    end: int
    kind: str  # "quote", "language", "question", or the kind of file ("image", "audio", "text")
    values: list[str]  # what the copies read instead (a text, a language, a question, files)
    at: int  # where the argument is said


def add_copies(st: PlanState, language_name_re: re.Pattern) -> None:
    """Ask each step again on the arguments of the fragments after it, with the steps done to its
    result (added to ``st.nodes`` as copies, each where its fragment is said)."""
    r = st.reading
    if not st.nodes or not r.tokens:
        return
    first = min(n.pos for n in st.nodes)
    # "..., then do the same with diary.txt": the step the model found in those words (it reads
    # "same" as a comparison) is no step of its own until it is known whether a copy is made
    again = [c for c in r.clauses if c.start > first and _SAME_AGAIN_RE.match(c.text)]
    doubtful = {n.id for n in st.nodes if any(c.start <= n.pos < c.end for c in again)}
    asked = [a for a in st.asked_at if not any(c.start <= a < c.end for c in again)]
    replaced: dict[int, int | None] = {}
    for frag in _fragments(st, asked, doubtful, again, language_name_re):
        nodes = [n for n in st.nodes if n.pos < frag.start and n.id not in doubtful]
        root = _root(nodes, frag, st)
        if root is None or says_a_correction(outside_quotes(r.text[root.pos:frag.end], r)):
            continue  # a correction the request was not rewritten by ("No, sorry, wrong text. This one: ..."): one step
        chain = [root]
        for n in nodes:
            if n.id > root.id and any(i in {c.id for c in chain} for v in n.args.values() for i in placeholder_ids(v)):
                chain.append(n)
        # "... ? and the tax? read both answers out": a step after the fragment on the first one's
        # result, said of all of them, reads each copy's too
        later = [n for n in st.nodes if n.pos >= frag.end and placeholder(root.id) in n.args.values()
                 and ALL_OF_THEM_RE.search(r.clauses[r.clause_at(n.pos)].text)]
        copies = [_copy(chain + later, frag, value, st) for value in frag.values]
        for d in doubtful:  # found in the words of the fragment: the copy of its task takes its place,
            n = st.nodes[d]  # else the copy of the last step asked again (what reads it reads that)
            if frag.start <= n.pos < frag.end:
                replaced[d] = next((c.id for made in copies for c in made if c.task == n.task), copies[0][-1].id if copies else None)
    _replace(st, replaced)


def _replace(st: PlanState, replaced: dict[int, int | None]) -> None:
    """Drop the steps in ``replaced``: what read one reads its copy instead (None: no copy, and
    what read it goes too). The steps left are put after what they read and numbered again."""
    if not replaced:
        return
    copy_of = {old: new for old, new in replaced.items() if new is not None}
    gone = set(replaced)
    for n in st.nodes:
        if n.id not in gone and any(i in gone and i not in copy_of for v in n.args.values() for i in placeholder_ids(v)):
            gone.add(n.id)
    pending = [n for n in st.nodes if n.id not in gone]
    for n in pending:
        n.args = {k: _renumbered(v, copy_of) for k, v in n.args.items()}
    ordered: list[PlanNode] = []
    while pending:  # a copy is added last; what reads it comes after it
        n = next((n for n in pending if all(i in {o.id for o in ordered} for v in n.args.values() for i in placeholder_ids(v))), pending[0])
        ordered.append(n)
        pending.remove(n)
    ids = {n.id: k for k, n in enumerate(ordered)}
    for n in ordered:
        n.args = {k: _renumbered(v, ids) for k, v in n.args.items()}
        n.id = ids[n.id]
    st.nodes[:] = ordered


def _renumbered(value: str, ids: dict[int, int]) -> str:
    """``value`` with each result it reads under its step's new id (``ids``: old to new; the others kept)."""
    return PLACEHOLDER_RE.sub(lambda m: placeholder(ids.get(int(m.group(1) or m.group(2)), int(m.group(1) or m.group(2)))), value)


def _fragments(st: PlanState, asked: list[int], doubtful: set[int], again: list[Span],
               language_name_re: re.Pattern) -> list[_Fragment]:
    """The fragments of the request, in order, each with the argument it holds that no step reads
    (``doubtful``: steps whose reading does not count, said in the clauses ``again``)."""
    r = st.reading
    read = [v for n in st.nodes if n.id not in doubtful for v in n.args.values()]
    out: list[_Fragment] = []
    quotes = [q for k, q in enumerate(r.quotes) if (k not in st.used_quotes or any(c.start <= q.start < c.end for c in again))
              and not any(q.text.strip() == v.strip() for v in read)]
    for q in quotes:
        if (start := _opened(st, asked, q.start, q.end)) is not None:
            out.append(_Fragment(start, q.end, "quote", [q.text.strip()], q.start))
    targets = {n.args["target_language"].lower() for n in st.nodes if "target_language" in n.args}
    for m in language_name_re.finditer(r.text) if targets else ():  # (a language repeats only a translation)
        if not _inside(m.start(), r.quotes) and m.group(0).lower() not in targets and (start := _opened(st, asked, m.start(), m.end())) is not None:
            out.append(_Fragment(start, m.end(), "language", [m.group(0).capitalize()], m.start()))
    given = {kind: [str(a.path) for a in st.attachments if a.kind == kind] for kind in ("image", "audio", "text")}
    named_spans = [f for f in r.files if (f.start, f.end) not in st.pointed]
    for f in r.files:
        kind = kind_of(f.text)
        value = next((p for p in given.get(kind, []) if _same_file(f.text, p)), f.text)
        if not kind or (start := _opened(st, asked, f.start, f.end)) is None:
            continue
        if value in read and (f.start, f.end) in st.pointed and not any(
                e.text == f.text and e.start < start for e in r.files):  # not "the other photo, the second one"
            # "what breed is this dog? and the one in the other picture": the step before read the
            # file pointed at after it; it reads the one given that nothing names
            reader = next((n for n in st.nodes if n.pos < start and value in n.args.values()), None)
            unread = [p for p in given.get(kind, []) if p not in read and not any(_same_file(s.text, p) for s in named_spans)]
            if reader is None or not unread:
                continue
            reader.args = {k: unread[0] if v == value else v for k, v in reader.args.items()}
            read.append(unread[0])
        elif value in read:
            continue
        out.append(_Fragment(start, f.end, kind, [value], f.start))
    for m in _POINTER_RE.finditer(r.text):
        if any(f.start <= m.start() < f.end for f in r.files) or (start := _opened(st, asked, m.start(), m.end())) is None:
            continue
        for kind, paths in given.items():
            if m.group("noun") and m.group("noun").lower().rstrip("s") not in {n.rstrip("s") for n in KIND_NOUNS.get(kind, ())}:
                continue  # "the second paragraph": no file of this kind
            unread = [p for p in paths if p not in read and not any(_same_file(f.text, p) for f in named_spans)]
            if unread and any(v in paths for v in read):
                picked = unread if m.group("all") else unread[-1:] if m.group("last") else unread[:1]
                out.append(_Fragment(start, m.end(), kind, picked, m.start()))
                read += picked
                break
    out += _questions_again(st, asked)
    return sorted(out, key=lambda f: f.at)


def _questions_again(st: PlanState, asked: list[int]) -> list[_Fragment]:
    """ "is the front door open in this photo? and the garage?": a question of a thing alone after
    a question asked of a file or a passage is that question again, of this thing; a verb alone
    ("when does it open? and close?") is the question of what that verb says."""
    r = st.reading
    out = []
    for m in _ASKED_OF_RE.finditer(r.text):
        said = [t for t in r.tokens if m.start("np") <= t.start < m.end("np")]
        done = [t for t in said if t.pos in ("VERB", "ADJ")]  # "when does it open? and close?": what it does instead
        if any(m.start() <= a < m.end() for a in asked) or not (
                done and len(said) == 1 or any(t.pos in ("NOUN", "PROPN") for t in said)
                and not any(t.pos in ("VERB", "AUX") for t in said) and _opened(st, asked, m.start("np"), m.end("np")) is not None):
            continue
        root = next((n for n in reversed(st.nodes) if n.pos < m.start() and n.task in _QUESTION_STEPS), None)
        question_said = r.sentence_of(max(0, m.start() - 2))
        asked_of = _verb_asked(question_said, st) if done else _thing_asked_of(question_said, st)
        said_in = re.compile(rf"\b{re.escape(asked_of)}\b") if asked_of else None
        if root is None or said_in is None or not said_in.search(root.args.get("text", "")):
            continue
        question = said_in.sub(m.group("np").strip(), root.args["text"], count=1)
        out.append(_Fragment(m.start(), m.end(), "question", [question], m.start("np")))
    return out


def _verb_asked(sentence: Span, st: PlanState) -> str | None:
    """The last verb of a question ("open" in "when does it open?"), outside quoted words."""
    r = st.reading
    verbs = [t for t in r.tokens if sentence.start <= t.start < sentence.end and t.pos == "VERB"
             and not _inside(t.start, r.quotes)]
    return verbs[-1].text if verbs else None


def _thing_asked_of(sentence: Span, st: PlanState) -> str | None:
    """The words of the thing a question is asked about ("the total" in "what's the total on this
    receipt?"): its first noun that is not the file asked of nor what is asked ("what colour"),
    with the words before it that belong to it, else the pronoun it is asked of."""
    r = st.reading
    toks = [t for t in r.tokens if sentence.start <= t.start < sentence.end and not _inside(t.start, r.quotes)]
    for k, t in enumerate(toks):
        if t.pos not in ("NOUN", "PROPN") or t.lower in GIVEN_NOUNS or k and toks[k - 1].lower in _NOT_THE_THING:
            continue
        first = k
        while first and toks[first - 1].dep in ("det", "amod", "compound", "poss", "nummod"):
            first -= 1
        last = k
        while last + 1 < len(toks) and toks[last + 1].pos in ("NOUN", "PROPN") and toks[last].dep == "compound":
            last += 1
        return r.text[toks[first].start: toks[last].start + len(toks[last].text)]
    # no noun: the pronoun it is asked of ("when does it open? and the gym?")
    return next((t.text for t in toks if t.lower in ("it", "they", "he", "she") and t.dep.startswith("nsubj")), None)


def _opened(st: PlanState, asked: list[int], start: int, end: int) -> int | None:
    """Where the fragment holding the argument at ``start``..``end`` opens: the connective before it
    with no verb between (the leftmost, past the words said with the argument); None when a verb
    comes first (it is a step of its own), when the sentence's words after it hold a verb, or when
    a step is asked inside it (``asked``: where the steps are asked)."""
    r = st.reading
    opened, joined = None, False
    for t in reversed([t for t in r.tokens if t.start < start]):
        if _asks(t) or t.lower in _BLOCKERS:
            break
        if _inside(t.start, r.quotes) or _inside(t.start, r.files):
            break  # the argument the step before read
        if t.lower in _OPENERS or t.text in _SENTENCE_ENDS:
            opened, joined = t.start, joined or t.lower in _OPENERS
    # to the end of the sentence ("the other pic's the envelope, ignore it"), or the next command
    # ("... the same with 'goodbye' and read it aloud")
    after = [t for t in r.tokens if end <= t.start]
    after = after[: next((k for k, t in enumerate(after) if t.text in (".", "?", "!") or t.lower in ("and", "then", ",")
                          and k + 1 < len(after) and after[k + 1].pos == "VERB"), len(after))]
    if opened is not None and not joined and not _ADDED_RE.search(r.text[opened: after[-1].start + len(after[-1].text) if after else end]):
        return None
    if opened is None or any(_asks(t) or t.lower in _BLOCKERS | {"'s", "\u2019s"} for t in after):  # "the other one's blurry": a remark, whatever the tagger took "'s" for
        return None
    if any(opened <= a < end for a in asked):
        return None
    return opened


def _inside(pos: int, spans: list[Span]) -> bool:
    return any(s.start <= pos < s.end for s in spans)


def _asks(t) -> bool:
    """A verb of its own (a quotation mark the tagger took for one is none; "do the same" asks
    nothing new, "the rest I'll do later" says something of the rest)."""
    return t.pos in ("VERB", "AUX") and (t.lemma not in _LIGHT_VERBS or t.tag != "VB") and any(ch.isalpha() for ch in t.text)


def _root(nodes: list[PlanNode], frag: _Fragment, st: PlanState) -> PlanNode | None:
    """The step the fragment asks again: the nearest before it that read an argument of its kind."""
    for n in reversed(nodes):
        if _slot(n, frag, st) is not None:
            return n
    return None


def _slot(n: PlanNode, frag: _Fragment, st: PlanState) -> str | None:
    """The argument of ``n`` that a fragment's value takes the place of: the quoted text said last
    before it, the target language, a file of its kind."""
    if frag.kind == "question":
        return "text" if n.task in _QUESTION_STEPS else None
    if frag.kind == "language":
        return "target_language" if "target_language" in n.args else None
    if frag.kind == "quote":
        said = [q.text.strip() for q in st.reading.quotes if q.end <= frag.start]
        slots = [(max((k for k, s in enumerate(said) if s and s in v), default=-1), name) for name, v in n.args.items()]
        best = max(slots, default=(-1, None))
        return best[1] if best[0] >= 0 else None
    return next((name for name, v in n.args.items() if not placeholder_ids(v) and kind_of(v) == frag.kind), None)


def _copy(chain: list[PlanNode], frag: _Fragment, value: str, st: PlanState) -> list[PlanNode]:
    """Add the steps of ``chain`` again, the root reading ``value``, each later one what the copy
    before it made; the copies."""
    ids: dict[int, int] = {}
    made = []
    for k, n in enumerate(chain):
        args = dict(n.args)
        if k == 0:
            args[_slot(n, frag, st)] = value
        args = {name: _renumbered(v, ids) for name, v in args.items()}
        copy = PlanNode(len(st.nodes), n.task, args, n.outputs, frag.at)
        ids[n.id] = copy.id
        st.nodes.append(copy)
        made.append(copy)
    return made


def _same_file(named: str, path: str) -> bool:
    """``path`` is the file named ``named`` (the whole name, not a piece of it)."""
    return path == named or path.endswith("/" + named)


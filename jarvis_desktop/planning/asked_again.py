"""A step asked for again in a clause of its own, on another input: "count the people in
group.jpg, then how many cars are in parking.jpg", "read the text on the whiteboard photo, then
translate it into Spanish, and also translate memo_en.txt".

Why: the step classifier places each label once, in the clause that asks for it most. A second
clause that asks the same step of something else is a second step; what shows it is grammar, not
the model's scores: the clause points at other files of the step's kind, or its verb names the
step itself while the two clauses work on different things.
"""

from __future__ import annotations

import numpy as np

from ..media import Attachment, kind_of
from .asks_nothing import asks_the_world_now
from .extract import RequestReading
from .features import STEM_LEN, STEM_MIN
from .plural_refs import from_one_end, says_the_others
from .references import file_references
from .result_refs import ANSWER_MAKERS, IMAGE_READERS
from .step_labels import CONTROL, GUIDED, media_input
from .step_words import QUESTION_OPENERS, QUESTION_TAGS, YOU_WORDS


def names_task(lemma: str, label: str) -> bool:
    """The word is of the family of the task's own name ("translate": translation)."""
    return len(lemma) >= STEM_MIN and any(part[:STEM_LEN] == lemma[:STEM_LEN] for part in label.split("-"))


def again_on_other_files(found: list[tuple[int, int, str]], P: np.ndarray, views: list, bar: float,
                         reading: RequestReading, attachments: list[Attachment]) -> list[tuple[int, int, str]]:
    """A step asked for again on another file, in a clause of its own ("count the people in
    group.jpg, then how many cars are in parking.jpg"; "read the sign in the first pic, and the
    menu in the second", "describe the first two and caption the last one", "..., and describe the
    other two"): once more for each clause that points at other files of its kind and has no step
    on that kind yet, when the step is likely there (``bar``)."""
    if len(views) < 2 or len(attachments) + len(reading.files) < 2:
        return []
    spans = reading.files + file_references(reading, attachments)
    given = {kind: [a.path.name.lower() for a in attachments if a.kind == kind] for kind in ("image", "audio", "text")}

    def files_in(i: int, kind: str) -> set[str]:  # named, pointed at, or counted ("the first two")
        span = views[i].span
        return ({f.text.lower() for f in spans if span.start <= f.start < span.end and kind_of(f.text) == kind}
                | set(from_one_end(span.text, given.get(kind, [])) or []))
    out = []
    for i0, j, label in found:
        kind = media_input(label)
        if kind is None or label in (CONTROL, GUIDED) or not (first := files_in(i0, kind)):
            continue
        for i in range(len(views)):
            # "caption the first one and describe the other two": the files not named yet
            others = files_in(i, kind)
            if (i != i0 and (others and not others & first or not others and says_the_others(views[i].span.text)) and P[i, j] >= bar
                    and not any(i2 == i and media_input(l2) == kind for i2, _, l2 in found + out)):
                out.append((i, j, label))
    return out


def named_again(found: list[tuple[int, int, str]], P: np.ndarray, views: list, seg, reading: RequestReading,
                bar: float) -> list[tuple[int, int, str]]:
    """A step whose own name is the verb of two clauses, each working on its own thing ("then
    translate it into Spanish, and also translate memo_en.txt into Spanish"): once more in the
    clause that got no step, when one of the two names a file or quotes words the other does not
    hold and the step is likely there at all (``bar``). Said of the same thing ("translate it,
    I mean translate it into Spanish") it stays one step."""
    if len(views) < 2:
        return []
    claimed = {i for i, _, _ in found}
    own = reading.files + reading.quotes

    def things(i: int) -> set[str]:
        span = views[i].span
        return {s.text.lower() for s in own if span.start <= s.start < span.end}

    def named_by_verb(i: int, label: str) -> bool:  # as a command ("translate", "can you translate"), not "translating"
        return any(t.pos == "VERB" and t.tag in ("VB", "VBP") and names_task(t.lemma, label) for t in seg.tokens_in(views[i].span))

    out = []
    for i0, j, label in found:
        if not named_by_verb(i0, label):
            continue
        for i in range(len(views)):
            if i in claimed or not named_by_verb(i, label) or P[i, j] < bar or things(i) == things(i0):
                continue
            out.append((i, j, label))
            claimed.add(i)
    return out


def paired_questions(views: list, seg, i: int) -> set[int]:
    """The clauses of the questions asked together in one sentence with clause ``i``'s ("what's
    the total | and which shop is it from"; ``seg.questions``), ``i`` among them; ``{i}`` alone when
    it is asked on its own."""
    group = {i}
    k = i
    while k > 0 and views[k].span.start in seg.questions:
        k -= 1
        group.add(k)
    k = i
    while k + 1 < len(views) and views[k].span.end in seg.questions:
        k += 1
        group.add(k)
    return group


def questions_asked_again(found: list[tuple[int, int, str]], P: np.ndarray, views: list, seg, bar: float,
                          answering: dict[int, str] | None = None) -> list[tuple[int, int, str]]:
    """``found`` with a step for each question in a clause of its own beside a clause whose question
    a step answers ("how much was the tip on this receipt? and what's the date on it?"): answered by
    a step of the same kind, on the same file or passage, when the model reads the clause as that
    step too (``bar``: a question the file cannot answer, "and what time is it now?", is not). Only
    a direct question (a question word or a verb opening it, its mark closing it) that no step
    claims, not one asked of the assistant or about the user's own doing ("can you ...?", "should I
    ...?").

    Questions joined in one sentence (``seg.questions``: "what breed is this and how old is he",
    "who sent it, what's the number, and when is it due") are questions whatever their mark, each
    answered beside the others: by their step when it answers questions, else, beside a step that
    reads what the picture holds but answers no question (the breed: a label), by ``answering``
    (index: label), the step that answers questions of the file given (a photo's or a page's); not
    beside a map ("show me how far it all is, what's near and what's far" asks for the map). A
    question answerer the model placed in the clause before such questions ("This is my booking.
    What's the gate, and ...?") goes to the first of them."""
    def partners(i: int) -> set[int]:
        return paired_questions(views, seg, i) - {i}

    found = list(found)
    claimed = {i for i, _, _ in found}
    for n, (i, j, label) in enumerate(found):
        if (label in ANSWER_MAKERS and i + 1 < len(views) and i + 1 not in claimed and views[i + 1].span.end in seg.questions
                and not partners(i) and not views[i].span.text.rstrip().endswith("?")):
            found[n] = (i + 1, j, label)
            claimed = {i for i, _, _ in found}
    out: list[tuple[int, int, str]] = []
    grown = True
    while grown:  # "who sent it? and what's the number? and when is it due?": from the answered one outwards
        grown = False
        for i in range(len(views)):
            pair = partners(i)
            near = next(((j, label) for k, j, label in found + out if label in ANSWER_MAKERS
                         and (k in pair if pair else abs(k - i) == 1 and P[i, j] >= bar)), None)
            if near is None and answering and any(k in pair and label in IMAGE_READERS and sum(k2 == k for k2, _, _ in found + out) == 1
                                                  for k, _, label in found + out):  # (two steps there: one may be this question's)
                near = next(iter(answering.items()))
            if (i in claimed or near is None or not (pair or views[i].span.text.rstrip().endswith("?"))
                    or not answering and asks_the_world_now(views[i].span.text)):
                continue  # (not "..., and what time is it now?" of a passage; of a photo it may be asked)
            words = [t for t in seg.tokens_in(views[i].span) if t.pos != "PUNCT" and t.lower not in QUESTION_OPENERS]
            if pair or words and (words[0].tag in QUESTION_TAGS or words[0].pos == "AUX" and words[0].dep != "ROOT") and not any(
                    t.lower in YOU_WORDS | {"i", "we"} for t in words[:3]):  # not "can you tell me?", "can I keep driving?"
                out.append((i, *near))
                claimed.add(i)
                grown = True
    return found + sorted(out)

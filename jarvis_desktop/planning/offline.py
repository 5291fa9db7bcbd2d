"""A planner that needs no language model: phrase patterns, sentence embeddings and data types.

The only controllers that run offline here are tiny models that plan nothing correctly, so this
planner reads the request directly: it finds the resources (files, quotes, pasted text), the tasks
asked for in the order they are asked (patterns per task type, and MiniLM embeddings against
example requests for steps no pattern catches), then links each task to an earlier task whose
output has the kind it needs, or to the user's resources. The result goes through the same
``validate_plan`` as an LLM's plan, so everything downstream is shared.
"""

from __future__ import annotations

import logging
import re
from typing import Any

from ..media import Attachment, kind_of
from ..pipeline.plan import TABLE_EXTS, Plan, PlanCheck, missing_files_message, placeholder, placeholder_ids, validate_plan
from ..task_types import ARG_KINDS, TASK_TYPES
from .as_written import as_written
from .both_named import both_named
from .detect import QUESTION_START_RE, SOUND_LABEL_RE, TABLE_RE, Detection, Detector, _input_kinds, _outputs, control_kind
from .each import ALL_OF_THEM_RE, EACH_FILE_RE, EACH_RE, asks_each, each_scope
from .counts import copies_asked
from .extract import Span, asked_after_colon, read_request
from .follow_ups import BARE_POINTERS, only_the_answer, points_back
from .given_text import outside_quotes
from .missing import NO_EARLIER_ANSWER_NOTE, NO_TASK_NOTE, asks_for_file, missing_files, nothing_planned_note, skipped_note
from .named_sources import FILE_READERS, READER_OF, named_producer, result_made_later, source_named_before, step_words
from .plural_refs import files_counted, step_names_many
from .references import file_references, points_at_given, quote_reference
from .gaps import add_copies
from .repeats import ASKED_AGAIN_STEPS, described_before, prompt_again
from .self_repairs import as_meant
from .result_refs import (MAP_REF_RE, PICTURE_READERS, RESULT_REF_RE, TEXT_REF_RE, asks_more_of_given, bare_target, has_own_subject,
                          is_a_map, language_named, means_original, means_same, reads_the_mapped_picture, says_source,
                          target_languages)
from .spoken_source import attachment_named, spoken_source
from .plan_state import (PlanNode, PlanState, files_named_in, files_with_words, given_files, given_words, nearest_file, original_words,
                         own_instruction, statement_spoken, step_part, table_file, table_files, text_file_pointed, topic_files_before, values_read)
from .step_words import (CONTENT_TASKS, after_lead_in, generation_prompt, inline_subject, instruction, picture_prompt,
                         prompt_text, question_asked, question_without, tidy_question)

log = logging.getLogger(__name__)

#: Steps whose text output is a verdict or a list of labels, not prose ("positive", "similar: 0.82",
#: "PERSON: Ana"): a later step that rewrites, translates or sums up "it" means the text the verdict
#: was about. Speaking the verdict, or making a picture of it, still reads the verdict.
LABEL_TASKS = {"text-classification", "token-classification", "sentence-similarity"}
PROSE_TASKS = CONTENT_TASKS - {"text-to-speech", "conversational"}
#: Verdicts a new text is not written from ("is this spam? then draft a reply to it": to the message);
#: a list of names or places still is ("pull out the names, then write an invitation to them")
VERDICT_TASKS = LABEL_TASKS - {"token-classification"}
#: Steps that make a new version of their file: "also" after them may well mean the new one
_NEW_VERSIONS = {"image-to-image", "audio-to-audio"}


#: Object pronouns that point at what an earlier step made
_POINTS_BACK_RE = re.compile(r"\b(?:it|them)\b", re.I)
#: Words that name a verdict as what is spoken ("read me the result", "say whether it is"), and a question asking for one ("what's its mood?")
_VERDICT_RE = re.compile(r"\b(?:result|answer|verdict|label|score|sentiment|category|mood|tone|whether|if)\b", re.I)
_ASKS_VERDICT_RE = re.compile(r"\W*(?:(?:and|so|ok|oh)\s+)?(?:what|which|who|whose|how)\b", re.I)


class OfflinePlanner:
    """Plans a request with no language model: the trained step classifier finds the steps
    (``learned.py``), then data types, pronouns and order link them.

    ``detector="patterns"`` is the older phrase-table detector, kept to compare against;
    ``model`` is a step model trained in memory (cross-validation folds), else the shipped one.
    """

    def __init__(self, use_embeddings: bool = True, detector: str = "learned", model: Any = None, use_spacy: bool = True):
        if detector == "learned":
            from .learned import LearnedDetector

            self.detector: Detector = LearnedDetector(model, use_spacy=use_spacy)
        elif detector == "patterns":
            self.detector = Detector(use_embeddings)
        else:
            raise ValueError(f"unknown detector {detector!r}: use learned or patterns")
        self.kb = self.detector.kb
        # the words for a picture an edit's instruction may call it by ("this photo", "the screenshot")
        self._picture_words = frozenset(self.kb.media_words.get("image", set()) - _NOT_PICTURES)

    @property
    def embedding_note(self) -> str | None:
        """Why the encoder is not in use, when it is not (patterns only)."""
        return self.detector.embedding_note

    # ----------------------------------------------------------------------------------------
    # public

    def plan(self, request: str, attachments: list[Attachment] | None = None, previous_answer: str | None = None) -> PlanCheck:
        """A validated plan for ``request`` (empty with a note when nothing can be planned).
        ``previous_answer``: the assistant's last answer in the conversation, which a request that
        points back at something it does not hold ("read that out loud", "translate it into
        French") works on."""
        attachments = list(attachments or [])
        try:
            meant = as_meant(as_written(request)) if isinstance(request, str) else None  # "hey jarvis, draw a cat, no wait, a dog"
            check = self._plan(meant.text if meant else request, attachments, previous_answer)
            check.corrected = meant.note() if meant else None
            return check
        except Exception as e:  # a planner bug must not take the session down: chat instead
            log.exception("offline planner failed")
            return _empty(f"the offline planner could not read this request ({type(e).__name__}); answering as chat")

    def warm_up(self) -> str | None:
        """Load the embedding model and embed the examples now; returns why not, if it can't."""
        self.detector.encoder()
        return self.embedding_note

    # ----------------------------------------------------------------------------------------
    # steps

    def _plan(self, request: str, attachments: list[Attachment], previous_answer: str | None = None) -> PlanCheck:
        if not isinstance(request, str) or not request.strip():
            return _empty("the request is empty: nothing to plan")
        reading = read_request(request)
        reading.previous_answer = (previous_answer or "").strip() or None
        if not reading.english:
            return _empty("the offline planner understands requests in English only; nothing was planned")
        dets = self.detector.detect(reading, attachments)
        if not dets and reading.held:
            return PlanCheck(Plan([], "offline", ["the request leaves its files for later; nothing was planned"]), held=True)
        if not dets:
            return _empty(NO_TASK_NOTE, reading.notes)
        if asked_after_colon(reading, [d.start for d in dets]):
            reading.subject = None  # "one more thing: caption this photo": the request, not a text to work on
        pointed = file_references(reading, attachments)
        # "the second photo", "the boarding pass": read as the file's name, so each step gets the file meant
        reading.files = sorted(reading.files + pointed, key=lambda f: f.start)
        state = PlanState(reading, attachments, notes=list(reading.notes), pointed={(f.start, f.end) for f in pointed})
        state.stepless = set(range(len(reading.clauses))) - {reading.clause_at(d.start) for d in dets}
        self._build(dets, state)
        add_copies(state, self.kb.language_name_re)  # "translate 'X' to Spanish. Italian too"
        if not state.nodes and not state.missing:
            why = NO_EARLIER_ANSWER_NOTE if state.no_answer_named else nothing_planned_note(outside_quotes(reading.text, reading))
            return _empty(why, state.notes)
        check = self._validate(state) if state.nodes else _empty("nothing can be planned without the missing files", state.notes)
        if state.missing:
            # the plan is the draft without the steps on those files: run, it would work on the
            # wrong thing ("describe photo.jpg and read it aloud" read "Read it aloud" aloud), so
            # the assistant runs nothing and tells the user what to attach
            check.missing = missing_files(state.missing, reading, attachments, state.pointed)
            check.plan.notes.append(missing_files_message(check.missing))
        if self.embedding_note and check.plan is not None:
            check.plan.notes.append(self.embedding_note)
        return check

    # ----------------------------------------------------------------------------------------
    # linking

    def _build(self, dets: list[Detection], st: PlanState) -> None:
        """Add the steps in the order asked; a step whose input a later step makes waits for it.

        A waiting step goes right after the step it waits for (not to the end), so the steps
        after it still chain to it. Each step waits at most once, so the loop ends.
        """
        pending = list(dets)
        st.asked_at = sorted(d.start for d in dets)
        asked = {id(d): k for k, d in enumerate(dets)}
        waited = st.waited
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
                # after the step that makes the result it names ("the Spanish version"), else the
                # first that makes what it reads
                named = result_made_later(d, st, st.reading.clauses[st.reading.clause_at(d.start)])
                j = next((i for i, p in enumerate(pending) if p.task in named or not named and (
                    set(_outputs(p.task)) - _input_kinds(p.task)) & needs), len(pending) - 1)
                while j + 1 < len(pending) and id(pending[j + 1]) in waited and asked[id(pending[j + 1])] < asked[id(d)]:
                    j += 1  # steps asked before it that wait for the same step keep their order
                pending.insert(j + 1, d)

    def _add(self, d: Detection, st: PlanState, later: set[str], dry: bool = False) -> str:
        """Add one task with its arguments; 'defer' when its input is made by a later step."""
        r = st.reading
        ci = r.clause_at(d.start)
        clause = r.clauses[ci]
        sentence = r.sentence_of(d.start)
        after = r.text[d.start : clause.end]
        backref = bool(self.kb.backref_re.search(clause.text)) or bool(re.search(r"\b(it|its|them|this|that|these|those)\b", after, re.I))
        parallel = bool(self.kb.parallel_re.search(outside_quotes(clause.text, r))) and not re.search(
            r"\b(result\w*|generated|output|answer|summary|translation|transcri\w+|description|caption|label|modified|edited|new|newly|enhanced|processed|altered|updated|transformed|created|segmented)\b",
            clause.text, re.I)
        if d.task == "guided":
            return self._add_guided(d, st, later, dry)
        spec = TASK_TYPES[d.task]
        args: dict[str, str] = {}
        for name in spec.inputs:
            kind = ARG_KINDS[name]
            if kind != "text":
                v = self._file_input(kind, d, st, clause, parallel, later)
                if v is None and d.task == "tabular-classification":
                    v = table_file(st)  # a CSV/TSV is the usual form of a table
            elif d.task in ("visual-question-answering", "document-question-answering"):
                v = self._question(d, st, clause, sentence)
            elif d.task == "question-answering":
                v = self._question(d, st, clause, sentence)
                ctx = self._text_input(d, st, clause, backref, parallel, later, dry, allow_quote_question=False)
                if ctx == "defer":
                    return "defer"
                if (asked := next((n for n in st.nodes if placeholder(n.id) == ctx and n.task == d.task), None)) is not None:
                    ctx = asked.args.get("context")  # "When does it open? And when does it close?": one passage, two answers
                if ctx is not None:
                    args["context"] = ctx
                    v = question_without(v, ctx)
            else:
                v = self._text_input(d, st, clause, backref, parallel, later, dry)
            if v == "defer":
                return "defer"
            if v is None:
                if not dry:
                    st.notes.append(skipped_note(d.task, kind))
                    if kind != "text" and asks_for_file(kind, st.reading, st.attachments, clause, self.kb.media_words):
                        st.missing.append(kind)
                return "skip"
            args[name] = v
        if dry:
            return "ok"
        if again := d.task in ASKED_AGAIN_STEPS and prompt_again(d.task, clause, st, args.get("text")):
            args["text"] = again  # "draw a red car, and another one in blue": a car in blue; "draw a fox. another": a copy
        text_ref = TEXT_REF_RE.search(clause.text)
        prod = st.producer("text")
        spoken = spoken_source(d.task, d.instruction, r, st.attachments, clause)
        if spoken is not None and not dry:
            # "the changes I recorded in memo.wav", "the question in the audio": the words come from speech
            prod, text_ref = self._push_or_get_asr(st, spoken, d.start), True
        if d.task == "image-to-image" and d.instruction:
            args["text"] = placeholder(prod.id) if (text_ref and prod) else instruction(r.text, d.start, clause, self._picture_words)
        if prod and d.task in ("visual-question-answering", "document-question-answering", "question-answering") and (
            spoken is not None  # the question is the recording's words (a quote beside it: the passage)
            or d.task != "question-answering" and text_ref and not any(clause.start <= q.start < clause.end for q in r.quotes)
        ):
            args["text"] = placeholder(prod.id)
            if args.get("context") == args["text"]:
                # the question was spoken: the passage is the other words, never the question itself
                other = st.producer("text", exclude={prod.id})
                named = files_named_in([clause], "text", st)
                passage = next(iter(named), None) or given_words(st) or (placeholder(other.id) if other else None)
                args.pop("context")
                if passage is not None:
                    args["context"] = passage
        if d.task == "sentence-similarity":
            other = self._second_text(d, st, clause, args.get("text", ""))
            if other:
                args["text2"] = other
        if d.task == "translation":
            m = next((m for text in (clause.text, sentence.text, r.text) for m in self.kb.language_re.finditer(text)
                      if not says_source(text, m)), None)
            if m:
                args["target_language"] = m.group(1).capitalize()
            elif lang := bare_target((clause, sentence), r.quotes, self.kb.language_name_re):
                args["target_language"] = lang
            elif lang := language_named(r.text):
                args["target_language"] = lang  # "read me the Spanish version ..., translate it"
        name, inputs = self._each_input(d, st, clause, args)
        if d.task == "translation" and name is None and len(langs := target_languages(clause.text, self.kb.language_list_re, self.kb.language_name_re)) >= 2:
            # "into French, Spanish and Italian", "in German for Berlin and in Italian for Rome": once each
            st.fanned = [self._push(st, d.task, {**args, "target_language": lang}, d.start).id for lang in langs]
            return "ok"
        if name is None:
            self._push(st, d.task, args, d.start, copy=bool(again) and d.task != "translation")
            return "ok"
        st.fanned = [self._push(st, d.task, {**args, name: v, **own_instruction(d, st, v, ci, self._picture_words)}, d.start,
                                copy=len(set(inputs)) < len(inputs)).id for v in inputs]
        return "ok"

    def _each_input(self, d: Detection, st: PlanState, clause: Span, args: dict[str, str]) -> tuple[str | None, list[str]]:
        """The argument and the inputs a step is asked for once each: "transcribe both", "caption
        each photo", "translate each transcript" (two or more files of its input kind, or the
        results of the step made once per file before it), "detect objects: cam1.jpg cam2.jpg"
        (files of its kind named with it), "two limericks about cats" (copies). (None, []) for a single step."""
        r = st.reading
        if copies := copies_asked(d.task, clause, r.tokens, args.get("text")):
            return "text", copies
        if both := both_named(d, st, clause):
            return both  # "read both the original and the translation aloud"
        ci = r.clause_at(d.start)
        scope = each_scope(r, ci, st.stepless)
        own = [step_part(d.start, clause, st)] + scope[1:]
        spec = TASK_TYPES[d.task]
        files = [n for n in spec.inputs if ARG_KINDS[n] != "text"]
        many = step_names_many(own[0], r, ARG_KINDS[files[0]] if files else None)  # "caption the pics", "summarise them"
        each = many or any(asks_each(EACH_RE, c.text) for c in scope)
        if len(files) == 1 and not str(args.get(files[0], "")).startswith("<GENERATED>"):
            tables = d.task == "tabular-classification"
            named = files_named_in(own, "text" if tables else ARG_KINDS[files[0]], st, tables)
            if len(named) >= 2 and args.get(files[0]) in named:
                return files[0], named
            if not each:
                return None, []
            inputs = given_files(ARG_KINDS[files[0]], st)
            if tables:
                inputs = [f for f in inputs if f.lower().endswith(TABLE_EXTS)] + table_files(st)
            if len(inputs) >= 2 and args.get(files[0]) in inputs:
                return files[0], files_counted(own[0], inputs, st)  # (of them, "the last two")
            return None, []
        texts = [n for n in spec.inputs + spec.optional if ARG_KINDS[n] == "text"]
        if texts == ["text"] and spec.inputs == ("text",):  # one text read (not a pair compared, a question and its passage)
            named = files_named_in(own, "text", st)
            if len(named) >= 2 and args.get("text") in named:
                return "text", named  # "sentiment of review1.txt, review2.txt"
            given = given_files("text", st)
            if each and len(given) >= 2 and args.get("text") in given:
                return "text", given  # "summarise each of these two drafts"
            if any(asks_each(EACH_FILE_RE, c.text) for c in scope) and (mixed := self._each_file_as_text(st, args.get("text"), d.start)):
                return "text", mixed  # "summarise the recording and the minutes file separately"
            # "is each review happy: 'A' and 'B'": the quoted texts listed with the one it reads, once each
            read = next((q for q in r.quotes if q.text == args.get("text")), None)
            sentence = r.sentence_of(read.start) if read else None
            quoted = [q.text for q in r.quotes if sentence and sentence.start <= q.start < sentence.end]
            if each and len(quoted) >= 2:
                return "text", quoted
        group = [placeholder(i) for i in st.fanned]
        reads = [k for k, v in args.items() if v in group]
        # the group made once per input before: read once each when asked of each (not by a comparison, which reads two
        # texts), or when "them" points at copies of one thing ("write two jokes about cats and read them aloud")
        if len(group) >= 2 and len(reads) == 1 and (each and not files and len(texts) == 1 or args[reads[0]] == group[-1] and (
                ALL_OF_THEM_RE.search(clause.text) and all(st.nodes[i].args == st.nodes[st.fanned[0]].args for i in st.fanned))):
            return reads[0], group
        if len(ins := files or texts) == 1 and (asks_each(EACH_RE, clause.text) or many if files else each):  # (files: in its own clause)
            # "caption a.jpg, transcribe b.wav, then read both aloud", "draw a fox, then another, and describe each": each unread result
            read, kind = values_read(st), ARG_KINDS[ins[0]]
            unread = [placeholder(n.id) for n in st.nodes if kind in n.outputs and placeholder(n.id) not in read]
            if len(unread) >= 2 and args.get(ins[0]) in unread:
                return ins[0], unread
        return None, []

    def _each_file_as_text(self, st: PlanState, read: str | None, pos: int) -> list[str]:
        """The words of every file given, of whatever kind, for a step asked once for each when they
        are not all text ("summarise the recording and the minutes file separately"); empty unless
        the step reads one of them that way (not "speak both answers"), there are two or more, and
        not all were worked on ("summarise the report, describe the chart, read both": the results)."""
        files, done = files_with_words(st), values_read(st)
        if len(files) < 2 or all(k == "text" for _, k in files) or all(f in done for f, _ in files):
            return []
        readers = {placeholder(n.id) for n in st.nodes if n.task in FILE_READERS and any(n.args.get(k) == f for f, k in files)}
        if read not in {f for f, _ in files} | readers:
            return []
        return [self._words_of(st, f, kind, pos) for f, kind in files]

    def _words_of(self, st: PlanState, src: str, kind: str, pos: int) -> str:
        """A given file's words: a text file as it is, a recording or a picture through its
        transcript or caption (the one made already, if any: ``_push`` makes a step once)."""
        return src if kind == "text" else placeholder(self._push(st, READER_OF[kind], {kind: src}, pos).id)

    def _push_or_get_asr(self, st: PlanState, audio: str, pos: int) -> PlanNode:
        for n in st.nodes:
            if n.task in ("automatic-speech-recognition", "audio-classification") and n.args.get("audio") == audio:
                return n
        return st.nodes[self._bridge(st, "automatic-speech-recognition", "audio", audio, pos)]

    def _bridge(self, st: PlanState, reader: str, kind: str, src: str, pos: int) -> int:
        """A reading step (speech or image to text) that a text task needs first; made once.

        The words name the reader: for an image, its label(s) -> classification, the objects ->
        detection, otherwise a caption or the text in it; for audio, its emotion, mood or kind of
        sound -> audio classification, otherwise a transcript."""
        if kind == "audio":
            sent = st.reading.sentence_of(pos).text
            if SOUND_LABEL_RE.search(sent):
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

    def _push(self, st: PlanState, task: str, args: dict[str, str], pos: int, copy: bool = False) -> PlanNode:
        same = None if copy else next((n for n in st.nodes if n.task == task and n.args == args), None)
        if same is not None:  # the same step on the same input (a reading step made earlier; not a copy counted)
            return same
        node = PlanNode(len(st.nodes), task, args, _outputs(task), pos)
        st.nodes.append(node)
        return node

    def _file_input(self, kind: str, d: Detection, st: PlanState, clause: Span, parallel: bool, later: set[str]) -> str | None:
        r = st.reading
        part = step_part(d.start, clause, st)
        in_clause = [f for f in r.files if clause.start <= f.start < clause.end and kind_of(f.text) == kind] or topic_files_before(kind, clause, st)
        prod = st.producer(kind)
        # a file named by an earlier step of the clause is not this step's when its own words point
        # at what was made ("depth of room.jpg -> underwater palace -> describe it")
        made_before = prod is not None and part.start > clause.start and _POINTS_BACK_RE.search(part.text)
        own = [f for f in in_clause if part.start <= f.start < part.end] or ([] if made_before else in_clause)
        if own and prod and prod.task == "audio-to-audio" and prod.args.get("audio") == attachment_named(own[0].text, kind, st.attachments):
            return placeholder(prod.id)  # "denoise then transcribe talk.wav": the cleaned recording
        if own and not (prod and re.search(r"\b(edited|modified|new|generated|resulting|enhanced|processed|altered|updated|segmented)\b", clause.text, re.I)):
            return attachment_named(own[0].text, kind, st.attachments)
        if prod and means_original(clause.text):
            att = nearest_file(kind, d.start, st)
            if att:  # "..., and caption the original photo": the file given, not what was made of it
                return att
        if prod and (prod.task == "text-to-speech" or prod.task in ("text-to-image", "text-to-video") and points_at_given(kind, clause.text)):
            unread = [f for f in given_files(kind, st) if f not in values_read(st)]
            if unread:  # "say 'X' aloud, and also transcribe the announcement I recorded": the recording;
                return unread[0]  # "draw a koala, then caption this photo": the photo (TaskBench's chains read what was made)
        if (prod and asks_more_of_given(clause.text) and prod.task not in _NEW_VERSIONS and prod.args.get(kind) in given_files(kind, st)
                and r.sentence_of(prod.pos).start == r.sentence_of(d.start).start):
            # one more step on the file the step before in the sentence read (a map or a cut-out is
            # not the photo); a new sentence ("Also, ...") may go on from the result
            return prod.args[kind]
        if prod and clause.start in r.listed and prod.task not in _NEW_VERSIONS and prod.args.get(kind) in given_files(kind, st):
            return prod.args[kind]  # "a caption, a depth map and the objects in it": each of the file ("denoise, transcribe": the clean one)
        if prod and (means_same(clause.text) or reads_the_mapped_picture(prod.task, d.task, r.tokens, clause, prod.pos)):
            return prod.args.get(kind) or placeholder(prod.id)  # the picture that step read, else the one it made
        if (prod and is_a_map(prod.task) and (is_a_map(d.task) or d.task in PICTURE_READERS)
                and len(clause.text.split()) <= 3 and not MAP_REF_RE.search(clause.text) and (given := given_files(kind, st))):
            return given[0]  # "depth + seg", "depth + caption": of the photo given, not of the map before
        if prod and not parallel:
            return placeholder(prod.id)
        att = nearest_file(kind, d.start, st)
        if att:
            return att
        if prod:
            return placeholder(prod.id)
        if kind in later:
            return "defer"
        return None

    def _text_input(self, d: Detection, st: PlanState, clause: Span, backref: bool, parallel: bool, later: set[str], dry: bool, allow_quote_question: bool = True) -> str | None:
        r = st.reading
        own_quotes = [i for i, q in enumerate(r.quotes) if clause.start <= q.start < clause.end and i not in st.used_quotes]
        if not allow_quote_question:
            own_quotes = [i for i in own_quotes if not r.quotes[i].text.rstrip().endswith("?")]
        labels = {n.id for n in st.nodes if n.task in LABEL_TASKS} if d.task in PROSE_TASKS else (
            {n.id for n in st.nodes if n.task in VERDICT_TASKS} if d.task == "text-generation" else set())
        prod = st.producer("text", exclude=labels)
        last = st.producer("text")
        if last is not None and last.id in labels and not own_quotes and last.args.get("text"):
            return last.args["text"]  # "is this review positive: '...'? then rewrite it": the review
        if (d.task == "text-to-speech" and last is not None and last.task == "text-classification" and not own_quotes and last.pos < clause.start
                and _POINTS_BACK_RE.search(clause.text) and not _VERDICT_RE.search(clause.text) and last.args.get("text")
                and not _ASKS_VERDICT_RE.match(r.clauses[r.clause_at(last.pos)].text)):  # (not "what's its mood? say it out loud")
            return last.args["text"]  # "check whether it sounds positive, then play it to me": what was judged, not the verdict
        strong_ref = RESULT_REF_RE.search(clause.text)
        if (d.task in LABEL_TASKS and last is not None and not own_quotes and not backref and not strong_ref
                and any(q.text == last.args.get("text") for q in r.quotes)):
            return last.args["text"]  # "summarize + sentiment: '...'": both read the quoted text
        if own_quotes and not (prod and strong_ref and not parallel and r.quotes[own_quotes[0]].start > d.start + 80):
            if not dry:
                st.used_quotes.add(own_quotes[0])
            return r.quotes[own_quotes[0]].text
        own_files = [f for f in r.files if clause.start <= f.start < clause.end and kind_of(f.text) == "text"]
        if own_files and d.task != "tabular-classification":
            # "fix the grammar in the caption draft": the text file the clause names, unless it
            # also points at a result ("compare the summary with notes.txt")
            rest = clause.text[: own_files[0].start - clause.start] + clause.text[own_files[0].end - clause.start :]
            named = attachment_named(own_files[0].text, "text", st.attachments)
            if named and not (prod and not parallel and RESULT_REF_RE.search(rest)):
                if prod and not parallel and d.start > own_files[0].end and any(
                        n.args.get("text") == named and n.pos >= clause.start for n in st.nodes):
                    return placeholder(prod.id)  # "translate notes.docx to Dutch, read aloud": the translation
                return named
        pointed = quote_reference(r, clause)
        if pointed is not None:
            return r.quotes[pointed].text  # "this tweet: '...'? ..., then read the tweet aloud": the tweet
        meant = named_producer(d, st, clause, prod) or source_named_before(d, st, clause)
        if meant is None and id(d) not in st.waited and result_made_later(d, st, clause):
            return "defer"  # "read me the Spanish version of the sign ... get the text off it and translate it"
        if meant is not None:
            return placeholder(meant.id)  # "..., and pull the names out of the transcript": that step's text
        if prod and d.task != "sentence-similarity" and means_original(step_words(d, st, clause)) and (given := original_words(st, rewritten=d.task == "text-to-speech")):
            # "rewrite it politely, and tell me whether the original is negative": the words given
            # (a comparison reads the result first and the original as its second text)
            return given
        if prod and d.task in ("text-to-image", "text-to-video") and has_own_subject(
                step_part(d.start, clause, st).text, {n.task for n in st.nodes}, [t for t in r.tokens if clause.start <= t.start < clause.end], clause.start in r.joined):
            return picture_prompt(clause.text)  # "write a poem, then paint a fox in the snow": its own picture
        if not (text_file := text_file_pointed(st, step_part(d.start, clause, st))) and prod and not parallel:
            return placeholder(prod.id)  # (not "..., and also summarise the notes file": that file)
        text_file = text_file or nearest_file("text", d.start, st)
        if text_file:
            return text_file
        if d.task in CONTENT_TASKS and not prod and "text" in later and _reader_follows(d, st):
            return "defer"  # a step named later reads the file ("summarize the text in this scan")
        if d.task in CONTENT_TASKS:
            for kind, reader in (("audio", "automatic-speech-recognition"), ("image", "image-to-text")):
                if self.detector.says(r, d.start, kind) and (not prod or parallel):
                    src = nearest_file(kind, d.start, st)
                    if src:
                        return "ok" if dry else placeholder(self._bridge(st, reader, kind, src, d.start))
                    if not dry and asks_for_file(kind, st.reading, st.attachments, clause, self.kb.media_words):
                        st.missing.append(kind)  # "summarize the recording" with none given: not the request's words
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
                src = nearest_file(kind, d.start, st, before_only=True)
                if src:
                    return "ok" if dry else placeholder(self._bridge(st, reader, kind, src, d.start))
            words = outside_quotes(clause.text, r)
            if st.previous_answer and d.task != "question-answering" and not r.quotes and points_back(
                    words, self.kb.language_name_re if d.task == "translation" else None, _words_after(clause, r)):
                return st.previous_answer  # "read that out loud", "now in Spanish" after an answer: that answer
            if not st.previous_answer and only_the_answer(words):
                if not dry:  # "read your answer out loud" before any answer: not its own words to read
                    st.no_answer_named = True
                return None
            if d.task in ("summarization", "token-classification", "text-classification", "text2text-generation", "translation", "question-answering"):
                return r.subject or inline_subject(d.task, r.text)
            if d.task == "conversational":
                # "how is your day going? reply out loud": the chat partner hears what it is asked
                return generation_prompt(r.clauses, r.clause_at(d.start), st.stepless)
            return None if d.task == "question-answering" else d.task == "text-to-speech" and statement_spoken(clause, st) or inline_subject(d.task, clause.text)
        if d.task == "text-to-video" and not prod and self.detector.says(r, d.start, "image"):
            # "turn this photo of a quote into a video": the video is made from what the image says
            src = nearest_file("image", d.start, st, before_only=True)
            if src:
                return "ok" if dry else placeholder(self._bridge(st, "image-to-text", "image", src, d.start))
        if d.task in ("text-to-image", "text-to-video") and not prod and re.search(
            r"\b(?:these|those|its|the detected|the identified|the recognized) (?:objects|items|elements|things)\b", clause.text, re.I
        ):
            # "a new image with just these objects" (the objects of a photo): find them first
            src = nearest_file("image", d.start, st, before_only=True)
            if src:
                return "ok" if dry else placeholder(self._bridge(st, "object-detection", "image", src, d.start))
        if d.task in ("text-to-image", "text-to-video") and not prod:
            # "visualize the scene I described in this recording": the speech is the description
            src = nearest_file("audio", d.start, st, before_only=True)
            if src:
                return "ok" if dry else placeholder(self._bridge(st, "automatic-speech-recognition", "audio", src, d.start))
        if r.subject or d.task == "conversational":
            return r.subject or prompt_text(r.text)
        words = outside_quotes(clause.text, r)
        # "write a limerick about it" after an answer: about that answer; not "it" made or quoted here
        back = st.previous_answer if (st.previous_answer and not st.nodes and not r.quotes
                                      and points_back(words, None, _words_after(clause, r))) else None
        if d.task == "text-generation":
            prompt = generation_prompt(r.clauses, r.clause_at(d.start), st.stepless)
            # "write a poem about it": about the last answer, or the picture just described
            return f"{prompt}\n\n{back}" if back else described_before(prompt, st) or prompt
        if d.task in ("text-to-image", "text-to-video"):
            prompt = described_before(picture_prompt(clause.text), st) or picture_prompt(clause.text)
            # "draw it", "paint what you just described": what was just described
            return back if back and (prompt.lower() in BARE_POINTERS or only_the_answer(prompt)) else prompt
        return prompt_text(clause.text)

    def _question(self, d: Detection, st: PlanState, clause: Span, sentence: Span) -> str:
        r = st.reading
        for i, q in enumerate(r.quotes):
            if i not in st.used_quotes and q.text.rstrip().endswith("?"):
                st.used_quotes.add(i)
                return q.text
        for i, q in enumerate(r.quotes):
            if i not in st.used_quotes and (clause.start <= q.start < clause.end) and QUESTION_START_RE.match(q.text):
                st.used_quotes.add(i)
                return q.text
        again = any(n.task == d.task for n in st.nodes)  # after a step of its kind, the clause's own ("the tip? and the date?")
        for m in sorted(re.finditer(r"[^.?!]*\?", r.text), key=lambda m: again and not (m.start() < clause.end and m.end() > clause.start)):
            a, b = m.span()
            a = clause.start if a < clause.start < b and clause.start in r.questions else a  # "what breed is it | and how old is he?"
            b = clause.end if a < clause.end < b and clause.end in r.questions else b
            s = r.text[a:b].strip(" ,;\t\n\"'\u201c\u201d")  # '..." what is ...?': not the closing quote mark
            s = re.sub(r"^(?:and |also |but |so )?(?:can|could|would|will) you (?:please )?(?:tell me|let me know|help me (?:find out|figure out|understand))\s*(?:,\s*)?", "", s, flags=re.I)
            _, colon, asked = s.rpartition(":")
            if colon and QUESTION_START_RE.match(asked.strip()):
                s = asked.strip()  # "say it out loud please: who painted it?"
            s = re.sub(r"^(?:and|also|but|so|oh|plus)\s+(?=\w)", "", after_lead_in(s), flags=re.I)  # "from this passage, who ...?", "and when ...?"
            if QUESTION_START_RE.match(s) and not re.match(r"^(can|could|would|will) you\b", s, re.I):
                return tidy_question(s)
        return tidy_question(question_asked(clause.text))  # the user's words (a quoted question is kept as written)

    def _second_text(self, d: Detection, st: PlanState, clause: Span, first: str) -> str | None:
        r = st.reading
        if means_original(step_words(d, st, clause)) and first.startswith("<GENERATED>") and (given := original_words(st)):
            return given  # "compare the summary with the original": the words given, though a step read them
        made = [placeholder(i) for i in st.fanned]  # "summarise each, then how close are the two summaries"
        if len(made) == 2 and first in made:
            return made[made.index(first) - 1]
        for i, q in enumerate(r.quotes):
            if i not in st.used_quotes and q.text != first:
                st.used_quotes.add(i)
                return q.text
        earlier = [n for n in st.nodes if "text" in n.outputs and placeholder(n.id) != first]
        if earlier:
            return placeholder(earlier[-1].id)
        return self._unread_file(st, d.start, taken=first)

    def _unread_file(self, st: PlanState, pos: int, taken: str | None = None) -> str | None:
        """The other side of a comparison when it is a given file no step has read yet ("does what
        I said in this voice memo match my note in the photo?", "do the two scanned pages say the
        same?"): a text file as it is, a recording or an image through its own reading step."""
        used = values_read(st) | {taken}
        return next((self._words_of(st, src, kind, pos) for src, kind in files_with_words(st) if src not in used), None)

    def _add_guided(self, d: Detection, st: PlanState, later: set[str], dry: bool) -> str:
        r = st.reading
        window = r.text[d.start : d.end]
        kind = control_kind(window, r.text, r.map_kind)
        control = next((n for n in st.nodes if n.task == f"{kind}-control"), None)
        if control is None:
            src = nearest_file("image", d.start, st) or (placeholder(p.id) if (p := st.producer("image")) else None)
            if src is None:
                if "image" in later:
                    return "defer"
                if not dry and asks_for_file("image", r, st.attachments, r.clauses[r.clause_at(d.start)], self.kb.media_words):
                    st.missing.append("image")
                return "skip"
            if dry:
                return "ok"
            # "the pose of both dancers, then a robot in each pose", "openpose a.jpg, b.jpg": one
            # map and one image per photo
            sentence = r.sentence_of(d.start)
            named, given = files_named_in([sentence], "image", st), given_files("image", st)
            each = named if len(named) >= 2 else given if not named and asks_each(EACH_RE, sentence.text) else []
            sources = each if len(each) >= 2 and src in each else [src]
            controls = [self._push(st, f"{kind}-control", {"image": f}, d.start) for f in sources]
        elif dry:
            return "ok"
        else:
            controls = [control]
        clause = r.clauses[r.clause_at(d.start)]
        quotes = [q.text for i, q in enumerate(r.quotes) if i not in st.used_quotes and clause.start <= q.start < clause.end]
        for control in controls:
            self._push(st, f"{kind}-text-to-image", {"text": quotes[0] if quotes else picture_prompt(clause.text, guided=True), "image": placeholder(control.id)}, d.start)
        return "ok"

    def _validate(self, st: PlanState) -> PlanCheck:
        items = [{"task": n.task, "id": n.id, "dep": _uses(n.args), "args": n.args} for n in st.nodes]
        check = validate_plan(items, st.attachments, source="offline")
        tries = 0
        while not check.ok and tries < 5 and items:
            # Drop the tasks the validator named, and tasks that used them, then try again.
            bad = {int(x) for e in check.errors for x in re.findall(r"task (\d+)", e)} or {items[-1]["id"]}
            items = [it for it in items if it["id"] not in bad and not any(f"<GENERATED>-{b}" in v for b in bad for v in it["args"].values())]
            st.notes.append("dropped steps the validator rejected: " + "; ".join(check.errors)[:300])
            check = validate_plan(items, st.attachments, source="offline")
            tries += 1
        if check.plan is not None:
            check.plan.notes.extend(st.notes)
        return check


# --------------------------------------------------------------------------------------------
# helpers

def _uses(args: dict[str, str]) -> list[int]:
    """The tasks whose output these arguments read (``[-1]``: none), as HuggingGPT writes ``dep``."""
    return sorted({i for v in args.values() for i in placeholder_ids(str(v))}) or [-1]


def _words_after(clause: Span, reading) -> str:
    """The request's words after ``clause``, quotes left out: where unpunctuated speech runs on
    with the words a pointer in the clause means."""
    return outside_quotes(reading.text[clause.end:], reading)


def _empty(note: str, more: list[str] | None = None) -> PlanCheck:
    return PlanCheck(Plan([], "offline", [*(more or []), note]))


def _reader_follows(d: Detection, st: PlanState) -> bool:
    """A step later in the same sentence reads a file into text (what ``d`` should work on)."""
    sent = st.reading.sentence_of(d.start)
    return any(
        p.start > d.start and sent.start <= p.start < sent.end and p.task != "guided"
        and _input_kinds(p.task) & {"image", "audio", "video"} and "text" in _outputs(p.task)
        for p in st.pending
    )


#: Image words that name what a picture shows or holds, not the picture ("remove the table")
_NOT_PICTURES = {"table", "document", "scene", "visual", "segment", "segmented", "segments", "scanned", "jpg", "png"}

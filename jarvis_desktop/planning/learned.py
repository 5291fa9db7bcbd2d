"""Steps found by the trained step classifier instead of phrase tables.

The request is cut into clauses by spaCy's parse (``segment.py``); each clause is scored by the
classifier (``stepmodel.py``, trained by ``train.py``) for every task type; a task is asked for in
the clause where it scores highest, when that score passes the model's threshold. Within a clause,
steps are ordered by where the word that most supports each one stands ("describe it out loud":
describe, then speak). Linking the steps and filling their arguments stays in ``offline.py``,
which only reads data types, pronouns and the order of the request.
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from ..config import resources_dir
from ..media import Attachment
from ..task_types import TASK_TYPES
from ..voice.commands import is_voice_command
from .asked_of_both import asked_of_another, changes_of_made_pictures
from .asked_again import again_on_other_files, named_again, questions_asked_again, names_task
from .asks_nothing import (asks_about_abilities, on_hold, only_apologizes, only_file_chores, only_judges_what_was_made, only_thanks,
                           runs_an_errand, says_what_it_holds, states_inability, tells_what_happened, without_ability_questions,
                           without_questions_of_the_world, without_questions_to_the_assistant)
from .detect import CONTROL_WORDS, DOC_WORDS_RE, SOUND_LABEL_RE, Detection, Detector, control_kind, draws_nothing, given_kinds, named_control_map
from .evidence import evidence_position
from .extract import RequestReading, Span
from .features import clause_views, word_features
from .follow_ups import likeliest_on_text, on_the_answer, steps_on_the_answer
from .given_text import ANSWERING_FILES, TEXT_READERS, outside_quotes, questions_on_given_text, questions_without_passage
from .heard_questions import questions_on_transcripts, questions_on_translations
from .imperatives import clause_commands, commanded_medium, drawn_in_clause, gives_a_command, maker_of, media_made, thing_to_make, writing_asked
from .listed_results import listed_cuts, results_listed
from .made_together import with_things_asked
from .maps_kept import kept_map
from .maps_named import MAP_ESTIMATES, maps_named, words_beside_the_map
from .missing import skipped_note
from .named_makers import (answers_commanded, answers_to_speak, captions_to_speak, judgments_asked_in_speech, makers_of_missing_media,
                           makers_of_named_results, questions_not_captions, writings_to_speak)
from .other_medium import on_medium_given, without_files_not_named, without_style_edits, without_unasked_files
from .repeats import MAKING_STEPS, steps_on_it_again, with_steps_asked_again
from .result_refs import named_results, result_names, version_in_language_asked
from .rewritten_as import shortened_to, writings_from_words
from .segment import Segmentation, load_nlp, segment
from .speech_asked import QUESTION_WORDS, words_not_of_sound
from .speech_steps import (spoken_readings, without_nothing_to_speak, without_pictures_to_hear, without_playback,
                           without_speech_asked_about, without_unasked_speech)
from .step_labels import CONTROL, EDIT, GUIDED, IMAGE_MAKERS, TEXT_MAKERS, media_input, media_output
from .step_order import in_run_order
from .step_words import ASKING_VERBS, STATIVE_VERBS, YOU_WORDS, asks_a_choice
from .stepmodel import StepModel
from .task_names import named_by_task_name
from .told_only import told_words, without_declined, without_told_steps
from .typos import Speller
from .words_read import words_read_off

MODEL_FILE = resources_dir() / "planner" / "step_model.npz"

#: When a request comes with a file or quoted words but no step passes the threshold, the likeliest
#: step is taken if it scores at least this share of the threshold.
FALLBACK_SHARE = 0.1
LABELS: list[str] = [
    t for t in TASK_TYPES if not t.endswith("-control") and not t.endswith("-text-to-image") or t == "text-to-image"
] + [EDIT, CONTROL, GUIDED]  # our task types, and three that stand for more than a type (step_labels.py)



@lru_cache(maxsize=1)
def shipped_model() -> StepModel:
    """The trained weights shipped with the app (``make train-planner`` rebuilds them)."""
    if not MODEL_FILE.is_file():
        raise FileNotFoundError(f"the planner's trained weights are missing ({MODEL_FILE}); run `make train-planner`")
    return StepModel.load(MODEL_FILE)


class LearnedDetector(Detector):
    """Finds the steps of a request with the trained classifier (no phrase patterns)."""

    def __init__(self, model: StepModel | None = None, use_spacy: bool = True):
        super().__init__(use_embeddings=False)
        self.model = model or shipped_model()
        self.use_spacy = use_spacy
        self.embedding_note = None
        self._warm = False
        self.speller = Speller({k[2:] for k in self.model.vocab if k.startswith("l:")})

    def encoder(self):
        """Warm up: load spaCy and the clause encoder now, and note what is missing."""
        from .clause_vectors import ClauseEncoder

        notes = []
        if self.use_spacy:
            _, why = load_nlp()
            if why:
                notes.append(f"{why}; clauses cut by punctuation and step words")
        encoder, why = ClauseEncoder.load()
        if encoder is None:
            notes.append(f"{why}; steps told apart by their words alone, less accurately")
        self.embedding_note = "; ".join(notes) or None
        self._warm = True
        return encoder

    def scores(self, reading: RequestReading, attachments: list[Attachment]):
        """Segment the request (setting ``reading.clauses``) and score each clause: views, probabilities."""
        if not self._warm:
            self.encoder()
        protected = [(q.start, q.end) for q in reading.quotes] + [(f.start, f.end) for f in reading.files]
        seg = segment(reading.text, protected, self.use_spacy, commands=True)
        listed = listed_cuts(seg.clauses, seg.tokens_in, lambda a, b: self._reread(a, b, seg, reading, attachments),
                             self.model.labels, self.model.threshold)
        if listed:  # "a caption, a depth map and the objects": a step per result listed
            seg = segment(reading.text, protected, self.use_spacy, commands=True, listed=tuple(listed))
        reading.listed = results_listed(listed, seg.clauses, seg.tokens_in)
        reading.clauses, reading.tokens, reading.joined, reading.questions = seg.clauses, seg.tokens, seg.joined, seg.questions
        views = clause_views(reading, seg, [a.kind for a in attachments], [a.path.suffix.lstrip(".").lower() for a in attachments])
        for v in views:  # "sumarize this": read as the word meant
            v.features += [f for w in v.features if w.startswith("l:") and w not in self.model.vocab
                           and (meant := self.speller.correct(w[2:])) for f in word_features(meant, meant)]
        return seg, views, self.model.proba([(v.features, v.dense) for v in views])

    def detect(self, reading: RequestReading, attachments: list[Attachment]) -> list[Detection]:
        seg, views, P = self.scores(reading, attachments)
        P = self._read_without_quotes(P, views, reading)
        P = self._read_without_result_names(P, views, seg, reading, attachments)
        m = self.model
        given = given_kinds(reading, attachments)  # the kinds of the files given or named
        attached = [a.kind for a in attachments]  # ... of those attached (not only named)
        answer_back = on_the_answer(reading, given, self.kb.language_name_re)  # a follow-up on the last answer
        if reading.subject and len(views) > 2 and len(reading.subject) > 400:
            # a pasted document: its sentences are the material, not steps; the instruction is
            # the first or the last clause, as people write it
            for k in range(1, len(views) - 1):
                P[k] = 0.0
        for k, v in enumerate(views):
            if len(views) > 1 and states_inability(v.span.text):
                # "..., I can't read it": why the user asks, not a step of its own ("we don't read
                # Korean" still asks for a translation)
                P[k, [j for j, label in enumerate(m.labels) if label != "translation"]] = 0.0
            elif len(views) > 1 and only_apologizes(seg.tokens_in(v.span)):
                P[k] = 0.0  # "sorry for my bad english": no translation, no step
        if named_control_map(reading.text) is None:  # "keep how she is standing but make her a knight"
            reading.map_kind = kept_map(P, m, views, given, seg.tokens)
        found: list[tuple[int, int, str]] = []  # (clause, label index, label)
        # a request needs a task when some clause does (noisy-OR, as trained); it goes where it scores most
        needs = _needs(P) if len(views) else np.zeros(len(m.labels))
        for j, label in enumerate(m.labels):
            if needs[j] >= m.threshold:
                found.append((int(P[:, j].argmax()), j, label))
        if not found and len(views):
            # below the threshold, the likeliest step still runs when the request is plainly for one:
            # a step on a photo or recording that was not given (planned, so the linker can say what
            # is missing), a file or quoted words given to be worked on, or a command whose words the
            # model knows too little of to be sure ("draw a busy market")
            j = int(needs.argmax())
            drawn = commanded_medium(seg.tokens)  # "draw ...", with no picture given to draw on
            drawn = drawn if drawn and drawn not in given else None
            made = thing_to_make(seg.tokens, self.kb.media_words) or drawn
            j = maker_of(made, j, needs, m.labels)
            if drawn and media_input(m.labels[j]):  # "draw a forest where the trees were cut down": not a cut-out
                j = m.labels.index(TEXT_MAKERS[drawn])
            if answer_back:  # "any names in what you said?": a step on the answer
                j = likeliest_on_text(needs, m.labels, reading.text, self.kb.language_name_re)
            for_a_step = (attachments or reading.files or reading.quotes or media_input(m.labels[j])
                          or gives_a_command(seg.tokens) or made is not None or answer_back)
            # ... or one the model is half sure of ("is this text spam <the text>", "pic: neon alley,
            # rain"); not in a remark about a thing ("my picture of the sunset is blurry"), nor speech,
            # which a voice assistant hears talked about ("can you hear me")
            half_sure = (needs[j] >= m.threshold * CLAUSE_SHARE and m.labels[j] not in SPEECH_CARRIERS
                         and not says_what_it_holds(seg.tokens))
            if for_a_step and needs[j] >= m.threshold * FALLBACK_SHARE or half_sure or drawn and media_output(m.labels[j]) == drawn:
                found.append((int(P[:, j].argmax()), j, m.labels[j]))
            elif CONTROL in m.labels and "image" in given and named_control_map(reading.text, CONTROL_WORDS):
                # "M-LSD lines, warehouse.jpg": a map named by its own name, of a picture given
                c = m.labels.index(CONTROL)
                found.append((int(P[:, c].argmax()), c, CONTROL))
            elif "image" in given and reading.text.rstrip().endswith("?") and not any(
                    t.lower in YOU_WORDS for t in seg.tokens) and (asked := [m.labels.index(x) for x in sorted(ANSWERING_FILES) if x in m.labels]):
                # "got eggs left?" with a photo of the fridge: a question is asked of the picture
                # given; not one asked of the assistant ("how's your day going?")
                a = max(asked, key=lambda k: needs[k])
                found.append((int(P[:, a].argmax()), a, m.labels[a]))
            elif "text-generation" in m.labels and writing_asked(seg.tokens):  # "could you give me a couple of taglines for ..."
                w = m.labels.index("text-generation")
                found.append((int(P[:, w].argmax()), w, "text-generation"))
        if answer_back:
            found = steps_on_the_answer(found, P, m.labels, m.threshold * FALLBACK_SHARE)
        found = _before_result_named(found, P, views, m)
        found = _to_unclaimed_clauses(found, P, views, m, seg)
        found += _unclaimed_clause_steps(found, P, views, m, seg, self.kb.media_words, given)
        found = asked_of_another(found, P, views, seg, m.threshold)  # "..., and also describe the actual photo"
        found += changes_of_made_pictures(found, P, views, seg, m.labels, m.threshold)  # "draw a cabin, then turn that into winter"
        found += maps_named(found, P, views, seg, m.labels, given, m.threshold)  # "pose + depth pls"
        found = questions_on_transcripts(found, P, views, m, seg, attached, m.threshold * CLAUSE_SHARE)  # "tell me when we meet"
        by_name = named_by_task_name(found, views, m.labels, reading, seg, given)
        found += by_name
        found += makers_of_missing_media(found, P, m, reading, attachments, m.threshold * FALLBACK_SHARE,
                                         lambda k: media_made(toks := seg.tokens_in(views[k].span)) | {drawn_in_clause(toks)})
        found += again_on_other_files(found, P, views, m.threshold * CLAUSE_SHARE, reading, attachments)
        found += named_again(found, P, views, seg, reading, m.threshold * FALLBACK_SHARE)
        paper = "image" in given and DOC_WORDS_RE.search(" ".join([reading.text] + [re.sub(r"[_\W]+", " ", a.path.stem) for a in attachments]))
        found = questions_asked_again(found, P, views, seg, m.threshold,  # "how much was the tip? and the date?"
                                      {m.labels.index(x): x for x in ANSWERING_FILES if x in m.labels and "image" in given
                                       and (x == "document-question-answering") == bool(paper)})
        words = bool(reading.quotes or reading.subject or "text" in given or any(
            media_output(label) == "text" and label not in FILE_JUDGES | {"text-classification"} for _, _, label in found))
        found = _without_rivals(found, P, m.labels, {i for i, v in enumerate(views) if "QUOTE?" in v.features}, words)
        found = _labelled_not_transcribed(found, views, m)
        found = _without_told_about(found, P, views, m, seg)
        found = without_style_edits(found, seg, views, given)
        found = on_medium_given(found, P, m.labels, m.threshold * CLAUSE_SHARE, [v.span for v in views], reading, attachments,
                                given, self.kb.media_words, m.threshold * FALLBACK_SHARE)
        kept = without_unasked_files(found, m.labels, [v.span for v in views], reading, attachments, given, self.kb.media_words)
        kept = without_files_not_named(kept, [v.span for v in views], reading, attachments)  # "read the poem out loud" (a photo given)
        reading.notes += [skipped_note(label, media_input(label)) for f in found if f not in kept for label in (f[2],)]
        found = with_steps_asked_again(kept, [v.span.text for v in views], P)
        found += steps_on_it_again(found, [v.span.text for v in views], P, m.threshold * CLAUSE_SHARE)
        found += self._unread_files(found, P, views, seg, reading, attachments)
        found = _compared_files_read(found, P, m.labels)
        found += _beside_speech(found, P, m, views)
        found += spoken_readings(found, views, m.labels, seg)
        found += captions_to_speak(found, P, m, reading, attachments, m.threshold * FALLBACK_SHARE)
        found += makers_of_named_results(found, P, views, m, m.threshold * FALLBACK_SHARE)
        found = with_things_asked(found, m.labels, views, seg)  # "a poem about autumn and a painting of leaves"
        found += writings_to_speak(found, m, reading, attachments, seg, views)
        found += writings_from_words(found, m, seg, views, given, self.kb.media_words)
        found += shortened_to(found, m, seg, views, given, bool(reading.quotes))  # "trim it to a sentence"
        found += (to_speak := answers_to_speak(found, P, m, seg, views, given, bool(reading.quotes), m.threshold * FALLBACK_SHARE))
        found += answers_commanded(found, P, m, seg, views, given, bool(reading.quotes))
        found += judgments_asked_in_speech(found, P, m, seg, views, m.threshold * FALLBACK_SHARE)
        if "text-generation" in m.labels and any(label == "conversational" for _, _, label in found) and writing_asked(seg.tokens):
            w = m.labels.index("text-generation")  # "give me two slogans for my gym and read them to me": written, not chatted
            found = [(i, w, "text-generation") if label == "conversational" else (i, j, label) for i, j, label in found]
        quoted = tuple((q.start, q.end) for q in reading.quotes)
        found = without_declined(found, views, m, seg, quoted)
        found = [f for f in found if not runs_an_errand(seg.tokens_in(views[f[0]].span))]  # "... then order more from the supplier"
        if "image" not in given:  # (with a photo or a scan, "what time is it" may be asked of it)
            found = without_questions_of_the_world(found, [v.span for v in views], reading.quotes)  # "also what time is it rn"
        found = without_told_steps(found, P, views, m, seg, reading, m.threshold * CLAUSE_SHARE,  # a question of a file given
                                   m.threshold * FALLBACK_SHARE if attachments or reading.files else float("inf"),
                                   lambda a, b: self._reread(a, b, seg, reading, attachments))
        found = without_speech_asked_about(found, views, seg)
        found = without_pictures_to_hear(without_playback(found, views, seg), views, seg)
        found = without_nothing_to_speak(found, views, seg, bool(attachments or reading.files or reading.quotes or reading.subject
                                                                or reading.previous_answer))
        told = told_words(reading.text, quoted).tokens  # what only tells asks nothing
        if any(label == "text-to-speech" for _, _, label in found):  # (quoted words ask for no sound: "translate 'read it out' ...")
            worked_on = "image" in given and any(media_input(label) is None and label not in ("text-to-speech", "conversational") for _, _, label in found)
            quiet = told | {t.start for t in seg.tokens if any(a <= t.start < b for a, b in quoted)} | words_not_of_sound(seg.tokens, worked_on)
            found = without_unasked_speech(found, seg, {w for t in seg.tokens if t.start not in quiet and (w := self.speller.correct(t.lower))},
                                           quiet)
            found = questions_not_captions(found, P, m.labels, views, given, reading)
        if to_speak and not any(label == "text-to-speech" for _, _, label in found):
            found = [f for f in found if f not in to_speak or f[2] != "conversational"]  # a chat answer to be spoken ("... I always say sydney")
        found = words_read_off(found, views, m.labels, given)
        found = questions_on_translations(found, P, views, m, seg, attached)  # "translate the letter, then tell me when to reply"
        found += _questions_on_made_images(found, views, m, seg, self.kb.media_words.get("image", set()))
        if not (attachments or reading.files):
            found = questions_on_given_text(found, views, m, reading, any(f[2] in IMAGE_MAKERS for f in found))
            found = questions_without_passage(found, views, m, reading)
            found = without_questions_to_the_assistant(found, [v.span for v in views], reading.quotes, seg.tokens_in, MAKING_STEPS)  # "what's your name?"
        if on_hold(reading.text, [t for t in seg.tokens if t.start not in told]):
            found, reading.held = [], True
        elif only_thanks(seg.tokens, reading.quotes) and not by_name or (  # not "object detection, thanks"
                not attachments and only_judges_what_was_made(seg.tokens, reading.quotes)):
            found = []  # "thanks, the transcript looked great", "that pic u made was fire": the chat answers it
        elif not (attachments or reading.files or reading.quotes) and is_voice_command(reading.text):
            found = []  # "speak slower": the voice's setting, not a step
        elif not (attachments or reading.files) and asks_about_abilities(reading.text):
            found = without_ability_questions(found, [v.span for v in views], reading.quotes,  # "can u make videos too?"
                                              lambda s: clause_commands(seg.tokens_in(s)))
        elif (attachments or reading.files) and only_file_chores(outside_quotes(reading.text, reading), seg.tokens):
            found = []  # "put these into a zip": the desktop's work, not a model's
        labels_found = {label for _, _, label in found}
        if GUIDED in labels_found and CONTROL in m.labels and draws_nothing(
                words_beside_the_map(found, views, seg, reading.files, images := self.kb.media_words.get("image", set())), images):
            # nothing to draw: the map alone was asked for
            found = [(i, m.labels.index(CONTROL), CONTROL) if lab == GUIDED else (i, j, lab) for i, j, lab in found
                     if lab != GUIDED or CONTROL not in labels_found]
            labels_found = {label for _, _, label in found}
        if CONTROL in labels_found and "text-to-image" in labels_found and GUIDED not in labels_found:
            # a control map and an image to make: the image is generated from the map
            found = [(i, m.labels.index(GUIDED) if lab == CONTROL else j, GUIDED if lab == CONTROL else lab)
                     for i, j, lab in found if lab != "text-to-image"]
        same = {MAP_ESTIMATES.get(control_kind(views[i].span.text, reading.text)) for i, _, lab in found if lab in (CONTROL, GUIDED)}
        found = [f for f in found if f[2] not in same]  # "take the depth of room.jpg, render it underwater"
        by_clause: dict[int, set[str]] = {}
        for i, _, label in found:
            by_clause.setdefault(i, set()).add(label)
        dets: list[Detection] = []
        for i, j, label in found:
            here = by_clause[i]
            # one step where the model names a more specific one in the same clause
            if label == "image-to-image" and EDIT in here:
                continue
            if label in ("text-to-image", CONTROL) and GUIDED in here:
                continue
            view = views[i]
            pos = self._evidence(seg, view, j, [m.labels.index(x) for x in here if x != label], told)
            if label in (GUIDED, CONTROL, EDIT):  # from the clause's verb that asks
                pos = min(pos, view.head if view.head not in told else next(
                    (t.start for t in seg.tokens_in(view.span) if t.pos == "VERB" and t.start not in told), pos))
            dets.append(self._detection(label, pos, view.span.end, reading))
        dets.sort(key=lambda d: d.start)
        return in_run_order(dets, reading)

    def _reread(self, start: int, end: int, seg, reading: RequestReading, attachments: list[Attachment],
                skip: list[tuple[int, int]] = ()) -> np.ndarray:
        """The step probabilities of characters ``start:end`` read as a clause of their own, the
        words in ``skip`` left out."""
        span = Span(reading.text[start:end], start, end)
        part = Segmentation([span], seg.tokens, [next((t.start for t in seg.tokens_in(span) if t.pos in ("VERB", "AUX")), start)], seg.parsed)
        view = clause_views(reading, part, [a.kind for a in attachments], [a.path.suffix.lstrip(".").lower() for a in attachments], skip)[0]
        return self.model.proba([(view.features, view.dense)])[0]

    def _read_without_quotes(self, P: np.ndarray, views: list, reading: RequestReading) -> np.ndarray:
        """When the model is not even fairly sure of a step (the plan would be empty), a clause holding
        a quote is read again with the quote left out of its vector: a long quote outweighs the few
        words that say what to do with it ("shorten this for my poster: '...'"). The likelier reading
        is kept."""
        from .clause_vectors import DIMS, clause_vectors

        m = self.model
        if not reading.quotes or P.size == 0 or _needs(P).max() >= m.threshold * FALLBACK_SHARE:
            return P
        todo = [k for k, v in enumerate(views) if v.dense.size >= DIMS
                and any(v.span.start <= q.start < v.span.end for q in reading.quotes)]
        if not todo:
            return P
        vecs = clause_vectors(reading.text, [(views[k].span.start, views[k].span.end) for k in todo],
                              [(q.start, q.end) for q in reading.quotes])
        for k, vec in zip(todo, vecs):
            dense = views[k].dense.copy()
            dense[-DIMS:] = vec
            row = m.proba([(views[k].features, dense)])[0]
            if row.max() > P[k].max():
                P[k] = row
        return P

    def _read_without_result_names(self, P: np.ndarray, views: list, seg, reading: RequestReading,
                                   attachments: list[Attachment]) -> np.ndarray:
        """A clause that names an earlier clause's result ("tell me how close the transcript is to
        my note") is read again without that name when the model reads it as the step that made
        the result: the name outweighs the few words that say what to do with the result, and the
        step that made it is already asked for. When that reading asks for another step on words
        (the result named is a text: "make a new pic from the caption" is no edit of the photo),
        the maker keeps only what the rest of the clause gives it and that step what the reading
        gives it; every other step is scored as the whole clause said. Not where the clause names a
        file of the maker's kind ("... then the description of the second photo": made again)."""
        m = self.model
        for k in range(1, len(views)):
            top = m.labels[int(P[k].argmax())]
            span = views[k].span
            names = [(a + span.start, b + span.start) for tasks, (a, b) in result_names(span.text, made=True, languages=True) if top in tasks]
            media = self.kb.media_words.get(media_input(top) or "", set())
            if not names or not any(m.labels[int(P[i].argmax())] == top for i in range(k)) or any(
                    t.lower in media for t in seg.tokens_in(span)):
                continue
            row = self._reread(span.start, span.end, seg, reading, attachments, names)
            new, old = int(row.argmax()), m.labels.index(top)
            if new != old and media_input(m.labels[new]) is None:  # only these two move: the rest is as the clause said
                P[k, old], P[k, new] = min(P[k, old], row[old]), max(P[k, new], row[new])
        return P

    def _unread_files(self, found, P, views, seg, reading: RequestReading, attachments: list[Attachment]):
        """A photo or recording the request talks about that no step found reads: files given
        with a request are there to be worked on ("what breed is the pup in the pic, and the
        barking clip, what kind of sound is that"). The likeliest step on that kind of file is
        taken, in the clause that names it (by its name or a word for it)."""
        if not found:
            return []
        m = self.model
        out = []
        given = set(given_kinds(reading, attachments))
        for kind in ("image", "audio"):
            if kind not in given or any(media_input(label) == kind for _, _, label in found):
                continue
            words = self.kb.media_words.get(kind, set())
            toks = [seg.tokens_in(v.span) for v in views]
            named = [i for i, v in enumerate(views) if f"F:{kind}" in v.features or {t.lower for t in toks[i]} & words]
            if not named or any(_LEAVE_RE.search(views[i].span.text) for i in named):
                continue  # the request does not talk about it, or says to leave it ("ignore the photo")
            # "is this mushroom edible? photo attached.": the question next to the words that name
            # the file is about it, when no step was found there and it names no other file
            claimed = {i for i, _, _ in found}
            others = self.kb.media_words.get("audio" if kind == "image" else "image", set())
            named += sorted({k for i in named for k in (i - 1, i + 1) if 0 <= k < len(views) and k not in named
                             and k not in claimed and not any(f.startswith("F:") for f in views[k].features)
                             and not {t.lower for t in toks[k]} & others})
            asked = any("QM" in views[i].features or {t.lower for t in toks[i]} & QUESTION_WORDS for i in named)
            cands = _file_steps(m.labels, kind, answering=asked)  # a question answered from the file needs a question
            j = max(cands, key=lambda j: P[named, j].max())
            if kind == "audio" and "audio-classification" in m.labels and any(
                    SOUND_LABEL_RE.search(views[i].span.text) for i in named):
                j = m.labels.index("audio-classification")  # its mood, its genre: what kind of sound it is
            if P[named, j].max() >= m.threshold * FALLBACK_SHARE:
                out.append((named[int(P[named, j].argmax())], j, m.labels[j]))
        return out

    def _evidence(self, seg, view, j: int, rivals: list[int], told: set[int]) -> int:
        """Where in the clause the word that speaks for label ``j`` and not its ``rivals`` stands,
        among the words that ask ("I don't need a new picture, just make it look like ...")."""
        toks = seg.tokens_in(view.span)
        return evidence_position(self.model, [t for t in toks if t.start not in told] or toks, j, rivals, view.span.start)

    def _detection(self, label: str, start: int, end: int, reading: RequestReading) -> Detection:
        if label == EDIT:
            return Detection("image-to-image", start, end, "learned", instruction=True)
        if label == GUIDED:
            return Detection("guided", start, end, "learned", guided=True)
        if label == CONTROL:
            clause = reading.clauses[reading.clause_at(start)]
            return Detection(f"{control_kind(clause.text, reading.text, reading.map_kind)}-control", start, end, "learned")
        return Detection(label, start, end, "learned")


#: Words that say to leave a file alone ("ignore the photo", "never mind the picture").
_LEAVE_RE = re.compile(r"\b(?:ignor\w*|never ?mind|forget about|skip|leave out)\b", re.I)


#: Two steps found in one clause that read the same kind of file (an image, a recording) are rival
#: readings of the same words ("transcribe this voice memo": speech recognition, or cleaning the
#: audio?) unless the weaker is at least this share as likely as the stronger. Steps on text are
#: not rivals (they chain within a clause: "summarise it and read it out"), except two that write.
RIVAL_SHARE = 0.7
#: Steps that write new text from text: two of them in one clause are two readings of one request.
WRITERS = {"text-generation", "conversational", "text2text-generation"}
#: Steps that judge a file as text-classification judges text: in one clause, two readings of one question.
FILE_JUDGES = {"audio-classification", "image-classification", "tabular-classification", "visual-question-answering"}
_ASR, _SOUND_KIND = "automatic-speech-recognition", "audio-classification"
#: Words that ask for what a recording says, not only what kind of sound it is
_WORDS_ASKED_RE = re.compile(r"\b(?:transcri\w*|write (?:it |that )?down|words|said|says?|saying|lyrics|text)\b", re.I)


#: Steps that only carry words between speech and text. A clause that asks for one of them most
#: often asks for a text step too ("tell me out loud what it's about in a few words": a summary,
#: spoken; "was the call in this recording friendly": a transcript, classified), and the speech
#: words take most of the clause's score from the step they carry.
SPEECH_CARRIERS = {"automatic-speech-recognition", "text-to-speech"}
#: ... and translation carries words between languages: "tl;dr in German" is a summary, translated,
#: the language taking most of the clause's score.
CARRIERS = SPEECH_CARRIERS | {"translation"}


def _beside_speech(found: list[tuple[int, int, str]], P: np.ndarray, m: StepModel, views: list | None = None) -> list[tuple[int, int, str]]:
    """A step on text asked in the clause a speech step or a translation leads (``CARRIERS``), kept
    at ``CLAUSE_SHARE`` of the threshold. Not a second step on the file a step of the clause already
    reads, nor a question on the text when a question on a photo or document is asked, nor the
    making of a text the clause says is given ("read this poem aloud: '...'")."""
    have = {label for _, _, label in found}
    out = []
    for i, j, label in found:
        if label not in CARRIERS or int(P[i].argmax()) != j:
            continue
        text = views[i].span.text if views else ""
        if label == "translation" and version_in_language_asked(text):
            continue  # "write me a Portuguese version of this: '...'": the translation is what is asked
        made = named_results(text, made=True)
        given = {t for tasks in named_results(text) if tasks not in made for t in tasks}
        for k, other in enumerate(m.labels):
            if other in have or other in given or other not in TEXT_READERS or P[i, k] < m.threshold * CLAUSE_SHARE:
                continue
            if other == "question-answering" and have & ANSWERING_FILES:
                continue
            media = media_input(other)
            if media and any(i2 == i and media_input(l2) == media for i2, _, l2 in found):
                continue
            out.append((i, k, other))
            have.add(other)
    return out


def _without_rivals(found: list[tuple[int, int, str]], P: np.ndarray, labels: list[str],
                    quoted_questions: set[int] = frozenset(), words: bool = True) -> list[tuple[int, int, str]]:
    """Drop the weaker of two steps in one clause that read the same kind of file (or that both
    write), when it is much less likely than the stronger (see ``RIVAL_SHARE``); not a question on
    a picture or document in a clause that quotes the question ("... and addressing the question,
    'What's the focal point of the document?'"), which is asked whatever else reads the file. With
    no ``words`` given or made to judge, a judgment of text beside a judgment of a file is always the
    misreading ("is this song happy or sad?"): it could only judge the file's label."""
    return [(i, j, label) for i, j, label in found
            if not (_outranked(i, j, label, found, P) or not words and label == "text-classification"
                    and any(i2 == i and l2 in FILE_JUDGES for i2, _, l2 in found))
            or i in quoted_questions and label in ANSWERING_FILES]


def _labelled_not_transcribed(found: list[tuple[int, int, str]], views: list, m: StepModel) -> list[tuple[int, int, str]]:
    """A clause asking what kind of sound a recording is ("what's the mood of this voice memo"):
    its classification, not its transcription, unless the words are asked for too ("transcribe it
    and tell me the mood") or a step of the clause reads them (the mood of what was said)."""
    if _SOUND_KIND not in m.labels:
        return found
    out: list[tuple[int, int, str]] = []
    for i, j, label in found:
        if label == _ASR and SOUND_LABEL_RE.search(views[i].span.text) and not _WORDS_ASKED_RE.search(views[i].span.text) and not any(
                i2 == i and media_input(l2) is None for i2, _, l2 in found):
            j, label = m.labels.index(_SOUND_KIND), _SOUND_KIND
        if (i, j, label) not in out:
            out.append((i, j, label))
    return out


def _outranked(i: int, j: int, label: str, found: list[tuple[int, int, str]], P: np.ndarray) -> bool:
    """Whether a step of clause ``i`` that reads the same kind of file as ``label`` (or that, like
    it, writes) is so much likelier there that ``label`` is a misreading of the same words."""
    media = media_input(label)
    if media:
        rivals = [P[i2, j2] for i2, j2, l2 in found if i2 == i and j2 != j and media_input(l2) == media]
    elif label in WRITERS:  # "write a friendly reply": a reply, or a piece of writing?
        rivals = [P[i2, j2] for i2, j2, l2 in found if i2 == i and j2 != j and l2 in WRITERS]
    elif label == "text-classification":  # "is she nervous or happy in this": the words' mood, or the voice's?
        rivals = [P[i2, j2] for i2, j2, l2 in found if i2 == i and l2 in FILE_JUDGES]
    else:  # other text steps chain within a clause ("summarise it and read it out")
        rivals = []
    return P[i, j] < RIVAL_SHARE * max(rivals, default=0.0)


def _without_told_about(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: StepModel,
                        seg) -> list[tuple[int, int, str]]:
    """Drop a step found in a clause that only tells what happened ("I recorded it in my backyard",
    "I already asked for a cat picture": first person, past tense) or what a file holds ("in this
    recording is me singing"): one on a file of the kind a step in another clause reads, or one
    that makes a thing when another clause asks for a step. The request is the other clause."""
    told = {i for i in {i for i, _, _ in found}
            if tells_what_happened(toks := seg.tokens_in(views[i].span)) or says_what_it_holds(toks)}
    if not told:
        return found
    asked, others = {media_input(label) for i, _, label in found if i not in told} - {None}, any(i not in told for i, _, _ in found)
    return [f for f in found if not (f[0] in told and (media_input(f[2]) in asked or others and f[2] in MAKING_STEPS)
                                     and _asked_nowhere_else(f, P, told, m.threshold * CLAUSE_SHARE))]


def _asked_nowhere_else(step: tuple[int, int, str], P: np.ndarray, told: set[int], floor: float) -> bool:
    """No clause that asks for something gives the step at least ``floor``: "rehearsal.wav is
    super noisy, could you clean it up" still asks for the cleaning the statement points at."""
    return all(P[k, step[1]] < floor for k in range(len(P)) if k not in told)


def _file_steps(labels: list[str], kind: str | None, answering: bool) -> list[int]:
    """The labels of steps that work on a file of ``kind`` (not a control map: that needs the words
    naming one); ``answering``: also those that answer a question about it."""
    return [j for j, label in enumerate(labels) if media_input(label) == kind and label not in (CONTROL, GUIDED)
            and (answering or label not in ANSWERING_FILES)]


def _compared_files_read(found: list[tuple[int, int, str]], P: np.ndarray, labels: list[str]) -> list[tuple[int, int, str]]:
    """A comparison asks its question of the texts it compares: a file's reader in the same
    clause reads it (the text in the image), it does not answer that question from it ("do these
    two scanned letters say the same thing": the letters' text, compared)."""
    compared = {i for i, _, label in found if label == "sentence-similarity"}
    out = []
    for i, j, label in found:
        if i in compared and label in ANSWERING_FILES:
            readers = [k for k in _file_steps(labels, media_input(label), answering=False)
                       if labels[k] in TASK_TYPES and TASK_TYPES[labels[k]].output == "text"]
            if readers:
                k = max(readers, key=lambda k: P[i, k])
                j, label = k, labels[k]
        out.append((i, j, label))
    return out


#: A clause of its own (a verb phrase the parser set apart) is usually a step of its own: when no
#: step was placed in it, its likeliest label is taken at this share of the threshold.
CLAUSE_SHARE = 0.5


#: Verbs that say something is made, not which task makes it ("generate speech")
_MAKING = {"generate"}


#: Steps that say which of some labels a thing is, or answer which it is from a picture
JUDGES = {"text-classification", "audio-classification", "image-classification", "visual-question-answering"}


def _unclaimed_clause_steps(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: StepModel,
                            seg, media_words: dict[str, set[str]], given: list[str] = ()) -> list[tuple[int, int, str]]:
    """Steps for the clauses that are actions but got none (see ``CLAUSE_SHARE``), one per label:
    a clause with a verb of doing, or one naming a thing to make ("poem abt cats, read it to me")."""
    if len(views) < 2:
        return []
    claimed, labels, guided = {i for i, _, _ in found}, {j for _, j, _ in found}, {CONTROL, GUIDED} & {f[2] for f in found}
    out = []
    for i, view in enumerate(views):
        if i in claimed:
            continue
        toks = seg.tokens_in(view.span)
        verbs = [t for t in toks if t.pos == "VERB"]
        choice = asks_a_choice(toks)
        if (seg.parsed and not any(t.lemma not in STATIVE_VERBS for t in verbs) and not choice
                and thing_to_make(toks, media_words) is None):
            continue  # not an action: a file or text the user has, a question without a verb or choice
        j, bar = int(P[i].argmax()), CLAUSE_SHARE
        naming = {t.lemma for t in verbs} - _MAKING
        # "..., and sketch me an owl": asked however unsure the model; not a map's picture ("pose from this, then draw a ballerina")
        drawn = None if guided else TEXT_MAKERS.get(drawn_in_clause(toks) or "")
        made = {TEXT_MAKERS[kind] for kind in media_made(toks) if kind in TEXT_MAKERS} | {drawn} - {None}
        if choice:
            made |= JUDGES  # "... and is it mean or is it wholesome": a judgement between labels
        if "audio" in given and SOUND_LABEL_RE.search(view.span.text):
            made.add(_SOUND_KIND)  # "... and tell me the genre" of a recording given

        def named_by_verb(k: int) -> bool:
            return m.labels[k] in made or any(names_task(w, m.labels[k]) for w in naming)

        named = [k for k in np.argsort(-P[i]) if k not in labels and named_by_verb(k)]
        if named and not (j in labels and named_by_verb(j)):
            # the step a verb of the clause names is asked for ("..., and after that classify the
            # photo using the depth estimate") though the model is unsure of it, or likelier reads
            # the clause as the step before it, named in passing; not where the planned step is the
            # one named again ("decode and classify the table")
            j, bar = int(named[0]), FALLBACK_SHARE
        if j not in labels and (P[i, j] >= m.threshold * bar or m.labels[j] == drawn):
            out.append((i, j, m.labels[j]))
            labels.add(j)
    return out


def _to_unclaimed_clauses(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: StepModel,
                          seg) -> list[tuple[int, int, str]]:
    """A step placed in a clause that also asks for another step moves to the clause just before,
    when that one asks for it most (at half the threshold or more), nothing claimed it, and the later
    one follows it ("then ..."):
    "strip the hum out of it first, then transcribe the cleaned-up audio" asks for the cleaning in
    its first clause, though "cleaned-up audio" scores it higher in the second."""
    out = list(found)
    claimed = {i for i, _, _ in out}
    for n, (i2, j, label) in enumerate(out):
        i = i2 - 1
        if i < 0 or i in claimed or not _THEN_RE.match(views[i2].span.text):
            continue
        if int(P[i].argmax()) == j and P[i, j] >= m.threshold * CLAUSE_SHARE and any(
                i3 == i2 and k != j for i3, k, _ in out):
            out[n] = (i, j, label)
            claimed.add(i)
    return out


def _before_result_named(found: list[tuple[int, int, str]], P: np.ndarray, views: list, m: StepModel) -> list[tuple[int, int, str]]:
    """A step placed in a clause that names its result as already made ("..., boil it down, then
    draft an email from that summary"; "a depth map and a caption. Read the caption aloud") moves
    to the earlier clause that asks for it most, when one does (``CLAUSE_SHARE`` of the threshold)
    and no likelier step there reads the same file. The name alone often scores the step higher."""
    out = []
    for i, j, label in found:
        if i > 0 and any(label in tasks for tasks in named_results(views[i].span.text)):
            earlier = [k for k in range(i) if P[k, j] >= m.threshold * CLAUSE_SHARE and not _outranked(k, j, label, found, P)]
            if earlier:
                i = max(earlier, key=lambda k: P[k, j])
        out.append((i, j, label))
    return out


#: How a clause says it comes after the one before ("..., and then transcribe it").
_THEN_RE = re.compile(r"\W*(?:and\s+|,\s*)?(?:then|afterwards|after that|next|finally)\b", re.I)


_ASKING_WORDS = {"what", "how", "whether", "if", "who", "which", "where", "whose"}


def _questions_on_made_images(found: list[tuple[int, int, str]], views: list, m: StepModel, seg,
                              image_words: set[str]) -> list[tuple[int, int, str]]:
    """'make a picture of a castle, then tell me whether there is a dragon in it': a question about
    the image an earlier step makes is answered by looking at that image. The classifier learned
    questions about photos from the photos' presence, which a made image does not give."""
    vqa = "visual-question-answering"
    makers = [i for i, _, label in found if label in IMAGE_MAKERS]
    if vqa not in m.labels or not makers:
        return []
    claimed = {i for i, _, label in found if label != "text-to-speech"}
    readers = [i for i, _, label in found if media_input(label) == "image" and label not in IMAGE_MAKERS]
    out = []
    for k, v in enumerate(views):
        made = [i for i in makers if i < k]
        if k in claimed or not made or any(max(made) <= i <= k for i in readers):
            continue  # "describe the new picture and tell me what it shows": the description is the answer
        toks = seg.tokens_in(v.span)
        asks = any(t.lower in _ASKING_WORDS for t in toks) and (
            any(t.lemma in ASKING_VERBS for t in toks) or v.span.text.rstrip().endswith("?"))
        about = any(t.lower in ("it", "them") or t.lemma in image_words for t in toks)
        if asks and about:
            out.append((k, m.labels.index(vqa), vqa))
    return out


def _needs(P: np.ndarray) -> np.ndarray:
    """How likely the request needs each step: a noisy-OR over its clauses, as the model was trained."""
    return 1.0 - np.prod(1.0 - P, axis=0)

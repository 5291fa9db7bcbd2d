"""Which clause a found step belongs to, and which steps a clause keeps: a step on text asked in
the same clause as a speech step ("tell me out loud the names in this voice note") is kept at a
lower bar, the speech words taking most of the clause's score; a step found where its result is
named ("then write a tweet from that summary") belongs to the clause that asks for it. Sentences
written for these tests (in no training or benchmark file)."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.extract import read_request
from jarvis_desktop.planning.learned import (CLAUSE_SHARE, FALLBACK_SHARE, LABELS, LearnedDetector, _before_result_named, _beside_speech,
                                             _unclaimed_clause_steps, _without_rivals,
                                             shipped_model)
from jarvis_desktop.planning.named_makers import makers_of_named_results
from jarvis_desktop.planning.task_names import named_by_task_name
from jarvis_desktop.planning.speech_steps import without_unasked_speech
from jarvis_desktop.planning.offline import OfflinePlanner
from planner_helpers import attach, tasks_of


def test_names_asked_out_loud_of_a_voice_note_are_found_then_spoken(tmp_path):
    check = OfflinePlanner().plan("tell me out loud the names in this voice note", attach(tmp_path, "note.wav"))
    asr, names, speech = check.plan.tasks
    assert tasks_of(check) == ["automatic-speech-recognition", "token-classification", "text-to-speech"]
    assert names.args["text"] == placeholder(asr.id)
    assert speech.args["text"] == placeholder(names.id)


def _scores(clause_scores: dict[str, float], clauses: int = 1) -> np.ndarray:
    P = np.full((clauses, len(LABELS)), 0.01)
    for label, p in clause_scores.items():
        P[0, LABELS.index(label)] = p
    return P


def _found(*labels: str) -> list[tuple[int, int, str]]:
    return [(0, LABELS.index(label), label) for label in labels]


@pytest.fixture(scope="module")
def model():
    return shipped_model()


def test_a_text_step_beside_a_leading_speech_step_is_kept_under_the_threshold(model):
    low = model.threshold * CLAUSE_SHARE + 0.02  # under the threshold, over the clause share
    for carrier, step in (("text-to-speech", "summarization"), ("automatic-speech-recognition", "text-classification")):
        P = _scores({carrier: 0.9, step: low})
        assert _beside_speech(_found(carrier), P, model) == _found(step)
    too_low = model.threshold * CLAUSE_SHARE - 0.02
    assert _beside_speech(_found("text-to-speech"), _scores({"text-to-speech": 0.9, "summarization": too_low}), model) == []


def test_no_step_is_added_where_no_speech_step_leads_the_clause(model):
    # a caption clause's runners-up are other readings of the photo, not further steps
    P = _scores({"image-to-text": 0.9, "document-question-answering": 0.25})
    assert _beside_speech(_found("image-to-text"), P, model) == []
    # a speech step that is not the clause's likeliest does not lead it
    P = _scores({"text-to-speech": 0.4, "text-generation": 0.8, "summarization": 0.25})
    assert _beside_speech(_found("text-generation", "text-to-speech"), P, model) == []
    # a translation leading it does ("tl;dr, in German")
    P = _scores({"text-to-speech": 0.4, "translation": 0.8, "summarization": 0.25})
    assert _beside_speech(_found("translation", "text-to-speech"), P, model) == _found("summarization")


def test_no_second_reader_of_one_file_nor_second_answer_is_added(model):
    # "read back what's in this document out loud": the document is read once
    P = _scores({"text-to-speech": 0.9, "image-to-text": 0.6, "document-question-answering": 0.25})
    assert _beside_speech(_found("text-to-speech", "image-to-text"), P, model) == []
    # the question in the memo is put to the photo, not to the transcript as well
    P = _scores({"automatic-speech-recognition": 0.9, "visual-question-answering": 0.5, "question-answering": 0.25})
    assert _beside_speech(_found("automatic-speech-recognition", "visual-question-answering"), P, model) == []


def _clauses_scored(text: str):
    detector = LearnedDetector()
    _, views, P = detector.scores(read_request(text), [])
    return views, P, detector.model


def test_a_step_found_where_its_result_is_named_belongs_to_the_clause_asking_for_it():
    views, P, m = _clauses_scored("trim these notes down to a few lines, then write a tweet from that summary")
    assert [v.span.text for v in views] == ["trim these notes down to a few lines", ", then write a tweet from that summary"]
    j = m.labels.index("summarization")
    # a model less sure of the asking clause than of the words naming the summary
    P[0, j], P[1, j] = 0.3, 0.6
    assert _before_result_named([(1, j, "summarization")], P, views, m) == [(0, j, "summarization")]
    P[0, j] = m.threshold * CLAUSE_SHARE - 0.05  # nothing before asks for it: it stays where it was found
    assert _before_result_named([(1, j, "summarization")], P, views, m) == [(1, j, "summarization")]


def test_a_step_does_not_move_where_a_likelier_reading_of_the_same_file_stands():
    views, P, m = _clauses_scored("list the objects on shelf.jpg, then read the caption aloud")
    assert len(views) == 2
    det, cap = m.labels.index("object-detection"), m.labels.index("image-to-text")
    P[0, det], P[0, cap], P[1, cap] = 0.95, 0.2, 0.9
    found = [(0, det, "object-detection"), (1, cap, "image-to-text")]
    assert _before_result_named(found, P, views, m) == found
    P[0, cap] = 0.8  # as likely as the detection there: a second step on the photo, asked in that clause
    assert _before_result_named(found, P, views, m) == [(0, det, "object-detection"), (0, cap, "image-to-text")]


@pytest.mark.parametrize("request_text, files, spoken_from", [
    ("i want to hear what's inside the fridge in this photo", ["fridge.jpg"], "visual-question-answering"),
    ("let me hear the names in this: 'Priya and Tom met Dr Alvarez in Lisbon on Friday.'", [], "token-classification"),
])
def test_asking_to_hear_the_answer_speaks_it(tmp_path, request_text, files, spoken_from):
    """"I want to hear ..." asks for the answer spoken (the photo's case planned no speech before)."""
    check = OfflinePlanner().plan(request_text, attach(tmp_path, *files))
    speech = [t for t in check.plan.tasks if t.task == "text-to-speech"]
    assert len(speech) == 1
    assert [t.task for t in check.plan.tasks if placeholder(t.id) == speech[0].args["text"]] == [spoken_from]


def test_asking_to_hear_a_recording_is_not_asking_for_speech(tmp_path):
    """"I want to hear band.wav without the hum": the cleaned recording is what is heard."""
    assert tasks_of(OfflinePlanner().plan("I want to hear band.wav without the hum", attach(tmp_path, "band.wav"))) == ["audio-to-audio"]


@pytest.mark.parametrize("request_text, spoken", [
    ("draft a thank-you card for my neighbour", False),
    ("draft a thank-you card for my neighbour and read it to me", True),
    ("give me a verbal summary of notes.txt", True),
    ("save the poem as an mp3", True),
    ("summarise interview.m4a", True),  # an audio file is about sound: the classifier decides
    # a word of sound that only says what a given recording is, not how the answer should come
    ("write out the voice note for me", False),
    ("type up this audio file, no rush", False),
    ("turn the caption into a voice message", True),
    ("make a voice note from the reply", True),
])
def test_speech_is_planned_only_where_the_request_is_about_sound(request_text, spoken):
    """A text-to-speech step the classifier found is dropped when no word of the request is about
    speech or hearing (a model fitted without our "compose a limerick" requests added one there)."""
    from jarvis_desktop.planning.segment import segment

    seg = segment(read_request(request_text).text, [], True, commands=True)
    found = _found("text-generation", "text-to-speech")
    assert without_unasked_speech(found, seg) == (found if spoken else _found("text-generation"))


def test_speech_asked_in_mistyped_words_is_kept():
    """"reed this alowd: ...": the classifier, reading the words meant, found the speech, and the
    check that some word is about sound, reading the words as typed, dropped it."""
    check = OfflinePlanner().plan("reed this alowd: the kettle has boiled", [])
    assert tasks_of(check) == ["text-to-speech"]
    assert check.plan.tasks[0].args["text"] == "the kettle has boiled"


def test_a_quoted_question_on_a_document_is_asked_beside_its_caption():
    """"interpret the page and answer the question, 'Who signed it?'": reading the page more likely
    than answering does not make the quoted question a misreading."""
    P = _scores({"image-to-text": 0.9, "document-question-answering": 0.5})
    found = _found("image-to-text", "document-question-answering")
    assert _without_rivals(found, P, LABELS) == _found("image-to-text")
    assert _without_rivals(found, P, LABELS, quoted_questions={0}) == found


def test_judging_the_words_of_a_file_judged_in_the_same_clause_is_a_misreading():
    """"is the singer sad or cheerful in this?" asks one judgment: of the voice, when that is
    much likelier than a judgment of text (which could only be of the voice's label)."""
    P = _scores({"audio-classification": 0.9, "text-classification": 0.5})
    assert _without_rivals(_found("audio-classification", "text-classification"), P, LABELS) == _found("audio-classification")
    P = _scores({"audio-classification": 0.6, "text-classification": 0.5})  # as likely: both asked
    assert _without_rivals(_found("audio-classification", "text-classification"), P, LABELS) == _found(
        "audio-classification", "text-classification")
    # ... unless there are no words to judge: it could only judge the voice's label
    P = _scores({"audio-classification": 0.6, "text-classification": 0.5})
    assert _without_rivals(_found("audio-classification", "text-classification"), P, LABELS, words=False) == _found(
        "audio-classification")
    # a transcript's mood beside the transcript: a chain, not rivals
    P = _scores({"automatic-speech-recognition": 0.9, "text-classification": 0.3})
    assert _without_rivals(_found("automatic-speech-recognition", "text-classification"), P, LABELS) == _found(
        "automatic-speech-recognition", "text-classification")


def test_a_recording_judged_with_no_words_given_is_judged_once(tmp_path):
    """"is this tune cheerful or gloomy? say it out loud": before, the mood of the label was judged
    again as text, and that judgment spoken."""
    check = OfflinePlanner().plan("is this tune cheerful or gloomy? say it out loud", attach(tmp_path, "tune.mp3"))
    assert tasks_of(check) == ["audio-classification", "text-to-speech"]


_POSTER = ('shorten this for my poster: "The harbour festival returns this summer with boat races, a fish market, live '
           'folk music every evening and fireworks over the water on the final night, and the mayor will open it."')


def test_a_clause_the_model_places_nowhere_is_read_again_without_its_quote():
    """A long quote outweighs the words that say what to do with it; read without it, the
    instruction is plain. Only when the model is not even fairly sure of a step anywhere."""
    detector = LearnedDetector()
    reading = read_request(_POSTER)
    _, views, P = detector.scores(reading, [])
    labels, threshold = detector.model.labels, detector.model.threshold
    again = detector._read_without_quotes(np.zeros_like(P), views, reading)
    assert labels[int(again[0].argmax())] == "summarization"
    assert again[0].max() > P[0].max()  # surer than the reading with the quote in its vector
    fairly_sure = np.zeros_like(P)
    fairly_sure[0, labels.index("translation")] = threshold * 0.5
    assert (detector._read_without_quotes(fairly_sure.copy(), views, reading) == fairly_sure).all()


def test_a_span_of_quoted_words_alone_still_gets_a_vector():
    from jarvis_desktop.planning.clause_vectors import clause_vectors

    text = 'say "good morning, everyone" twice'
    quote = (text.index('"') + 1, text.rindex('"'))
    whole, inside = clause_vectors(text, [(0, len(text)), quote], [quote])
    assert np.linalg.norm(inside) > 0.99  # left out of others' means, not of its own
    assert float(whole @ clause_vectors(text, [(0, len(text))])[0]) < 0.999  # the quote left out changes the clause's vector


@pytest.mark.parametrize("request_text", [
    "illustration of the digestive system for my class, then caption it",
    "poster of the water cycle for the classroom, then caption it",
])
def test_a_picture_named_before_the_step_that_reads_it_is_made(request_text):
    """No picture was given, and the caption reads "it": the picture the clause before names, which
    the model was unsure of alone (the plan was empty)."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == ["text-to-image", "image-to-text"]
    made, caption = check.plan.tasks
    assert caption.args["image"] == placeholder(made.id)


def test_speech_with_no_words_but_a_made_picture_speaks_its_caption():
    """"say out loud what you painted": the words to speak are the new picture's caption, not the
    request's own words (which were spoken before)."""
    check = OfflinePlanner().plan("paint me a meadow at dawn and say out loud what you painted", [])
    assert tasks_of(check) == ["text-to-image", "image-to-text", "text-to-speech"]
    made, caption, speech = check.plan.tasks
    assert caption.args["image"] == placeholder(made.id) and speech.args["text"] == placeholder(caption.id)


def test_a_clause_naming_a_thing_to_make_gets_its_step_without_a_verb():
    """"poem abt pizza, read it 2 me": the first clause has no verb, but names what to write."""
    detector = LearnedDetector()
    reading = read_request("poem abt pizza, read it 2 me")
    seg, views, P = detector.scores(reading, [])
    m = detector.model
    assert len(views) == 2
    P[:] = 0.01
    gen, tts = m.labels.index("text-generation"), m.labels.index("text-to-speech")
    P[0, gen], P[1, tts] = m.threshold * CLAUSE_SHARE + 0.02, 0.9
    got = _unclaimed_clause_steps([(1, tts, "text-to-speech")], P, views, m, seg, detector.kb.media_words)
    assert got == [(0, gen, "text-generation")]
    # a clause that only says what the user has, with no verb, gets none ("my notes, read them to me")
    seg2, views2, P2 = detector.scores(read_request("the notes from monday, read them to me"), [])
    P2[:] = 0.01
    P2[0, gen], P2[1, tts] = m.threshold * CLAUSE_SHARE + 0.02, 0.9
    assert _unclaimed_clause_steps([(1, tts, "text-to-speech")], P2, views2, m, seg2, detector.kb.media_words) == []



def test_a_step_named_by_the_verb_of_an_unclaimed_clause_is_planned(tmp_path):
    """"..., and after that classify the photo using the depth estimate": the verb names the step,
    though the model, reading "depth estimate", is unsure of it."""
    check = OfflinePlanner().plan("estimate the depth of porch.jpg, and after that classify the photo using the depth "
                                  "estimate", attach(tmp_path, "porch.jpg"))
    assert tasks_of(check) == ["depth-estimation", "image-classification"]
    depth, label = check.plan.tasks
    assert label.args["image"] == placeholder(depth.id)


def test_a_clause_read_as_the_step_before_it_gets_the_step_its_verb_names():
    """The second clause scores the depth map (planned in the first) highest, the caption next and
    the classification far under the bar: its verb decides."""
    detector = LearnedDetector()
    m = detector.model
    depth, cls, caption, gen = (m.labels.index(x) for x in (
        "depth-estimation", "image-classification", "image-to-text", "text-generation"))

    def steps_added(second_clause: str, planned: int = depth) -> list[tuple[int, int, str]]:
        seg, views, P = detector.scores(read_request("map the depth of garden.png. " + second_clause), [])
        assert len(views) == 2
        P[:] = 0.01
        P[0, planned], P[1, planned], P[1, caption] = 0.9, 0.8, 0.3
        P[1, cls] = P[1, gen] = m.threshold * FALLBACK_SHARE + 0.01  # far under the bar of an unnamed step
        return _unclaimed_clause_steps([(0, planned, m.labels[planned])], P, views, m, seg, detector.kb.media_words)

    assert steps_added("then classify the garden using that map") == [(1, cls, "image-classification")]
    assert steps_added("then label the garden using that map") == []  # "label" names no task
    # "generate" says something is made, not which task makes it
    assert steps_added("then generate a poem using that map") == []
    # the planned step, named again, is that step asked again, not a new one of its family
    tab = m.labels.index("tabular-classification")
    assert steps_added("then classify the table in it", planned=tab) == []


def test_speech_of_an_answer_no_step_finds_gets_the_answering_step(tmp_path):
    check = OfflinePlanner().plan('transcribe memo.wav and answer "who is bringing the cake?" from it, then say the '
                                  "answer out loud", attach(tmp_path, "memo.wav"))
    assert tasks_of(check) == ["automatic-speech-recognition", "question-answering", "text-to-speech"]
    asr, qa, speech = check.plan.tasks
    assert qa.args["context"] == placeholder(asr.id) and speech.args["text"] == placeholder(qa.id)


def test_a_result_speech_reads_by_name_is_made_when_no_step_makes_it():
    """"..., and after that read the short version to me": the summary is asked for by name, though
    the model, reading "make it short", is unsure of it; not "this poem" (given, not made), and not
    "the answer" where a step that answers is planned ("count the dogs ... and say the answer")."""
    detector = LearnedDetector()
    m = detector.model

    def makers(text: str, planned: dict[int, str], scores: dict[tuple[int, str], float]) -> list[str]:
        _, views, P = detector.scores(read_request(text), [])
        P[:] = 0.01
        for (i, label), p in scores.items():
            P[i, m.labels.index(label)] = p
        found = [(i, m.labels.index(label), label) for i, label in planned.items()]
        return [label for _, _, label in makers_of_named_results(found, P, views, m, m.threshold * FALLBACK_SHARE)]

    low = m.threshold * FALLBACK_SHARE + 0.01
    letter = "make the letter short first, and after that read the short version to me"
    assert makers(letter, {1: "text-to-speech"}, {(0, "summarization"): low}) == ["summarization"]
    assert makers(letter, {1: "text-to-speech"}, {(0, "summarization"): low - 0.02}) == []  # under the bar
    assert makers("read this poem aloud please, the one about fog", {0: "text-to-speech"},
                  {(0, "text-generation"): 0.3}) == []
    count = "count the dogs in park.jpg and just say the answer"
    assert makers(count, {0: "object-detection", 1: "text-to-speech"}, {(1, "question-answering"): 0.3}) == []
    assert makers(count, {1: "text-to-speech"}, {(1, "question-answering"): 0.3}) == ["question-answering"]


@pytest.mark.parametrize("request_text, tasks", [
    ("read this poem aloud please: 'The fog comes on little cat feet'", ["text-to-speech"]),
    ("write me a short poem about fog and read it aloud", ["text-generation", "text-to-speech"]),
])
def test_a_text_the_clause_says_is_given_is_read_out_not_written(request_text, tasks):
    """"this poem" is the one given; the model's lean towards writing one beside the speech step
    (the word "poem") is not a second step."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == tasks
    if tasks == ["text-to-speech"]:
        assert check.plan.tasks[0].args["text"] == "The fog comes on little cat feet"


def test_a_new_picture_or_video_a_clause_says_to_make_names_its_step():
    """"..., then produce a fresh illustration from what you found": the thing a making verb makes
    names the step, though the model, reading "what you found", is unsure of it. A thing already
    there ("make the chart brighter") or a made thing with no medium ("generate a poem") names none."""
    detector = LearnedDetector()
    m = detector.model
    det, t2i, t2v = (m.labels.index(x) for x in ("object-detection", "text-to-image", "text-to-video"))

    def steps_added(second_clause: str) -> list[tuple[int, int, str]]:
        seg, views, P = detector.scores(read_request("find every bird in feeder.jpg. " + second_clause), [])
        assert len(views) == 2
        P[:] = 0.01
        P[0, det], P[1, det] = 0.9, 0.12  # under the bar of a clause's own step
        P[1, t2i] = P[1, t2v] = m.threshold * FALLBACK_SHARE + 0.01
        return _unclaimed_clause_steps([(0, det, "object-detection")], P, views, m, seg, detector.kb.media_words)

    assert steps_added("then produce a fresh illustration from what you found") == [(1, t2i, "text-to-image")]
    assert steps_added("then put the birds you found in a newly made poster") == [(1, t2i, "text-to-image")]
    assert steps_added("after that, create a short clip from those birds") == [(1, t2v, "text-to-video")]
    assert steps_added("then make the picture brighter around them") == []
    assert steps_added("then generate a poem about them") == []


def test_a_step_asked_for_by_its_task_name_is_planned():
    """"..., then with visual question answering tell me which one is the oldest": the task's own
    name asks for it, however unsure of it the model is; the longer name is not also read as the
    shorter one inside it ("question answering"), and a name inside quoted words asks for nothing."""
    detector = LearnedDetector()
    m = detector.model
    vqa, tok = (m.labels.index(x) for x in ("visual-question-answering", "token-classification"))

    def views_of(text: str):
        reading = read_request(text)
        seg, views, _ = detector.scores(reading, [])
        return views, (reading, seg, [])

    views, reading = views_of("caption the statues in hall.jpg, then with visual question answering tell me which one is the oldest")
    assert len(views) == 2
    assert named_by_task_name([], views, m.labels, *reading) == [(1, vqa, "visual-question-answering")]
    assert named_by_task_name([(1, vqa, "visual-question-answering")], views, m.labels, *reading) == []  # planned already
    views, reading = views_of("tag the place names in this memo using token-classification")
    assert named_by_task_name([], views, m.labels, *reading) == [(0, tok, "token-classification")]
    # the names a task goes by: its acronym, its usual long name
    ocr, asr = (m.labels.index(x) for x in ("image-to-text", "automatic-speech-recognition"))
    for text, j in (("quick NER pass over notes.txt", tok), ("run OCR on the receipt", ocr),
                    ("speech to text for the voicemail pls", asr)):
        views, reading = views_of(text)
        assert named_by_task_name([], views, m.labels, *reading) == [(0, j, m.labels[j])], text
    views, reading = views_of("translate 'our app does speech to text offline' into German")
    assert named_by_task_name([], views, m.labels, *reading) == []


@pytest.mark.parametrize("request_text, tasks", [
    ("tell me a silly joke about penguins out loud", ["text-generation", "text-to-speech"]),
    ("tell me a bedtime story about a sleepy owl out loud", ["text-generation", "text-to-speech"]),
    ("could you say a short riddle out loud", ["text-generation", "text-to-speech"]),
    ("say 'see you soon' in a calm voice", ["text-to-speech"]),
    ("give me a little motivational speech out loud", ["text-generation", "text-to-speech"]),  # given: made
    ("give me a short pep talk and then read it aloud", ["text-generation", "text-to-speech"]),  # a clause before
    ("give me a voice memo saying good luck", ["text-to-speech"]),  # its words are given
    ("tell me something surprising out loud", ["text-generation", "text-to-speech"]),  # to be made up
    ("how should I pronounce gnocchi", ["text-to-speech"]),  # asks to hear the word, unlike "how do I say X in French"
    ("pronounce acai for me please", ["text-to-speech"]),
])
def test_a_piece_of_writing_asked_to_be_heard_is_written_then_spoken(request_text, tasks):
    """"a bedtime story ..." is not there yet: it is written, and its words are spoken, not the
    request's own ("tell me a bedtime story ... out loud" read aloud). Words given are spoken as
    they are."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == tasks
    if len(tasks) == 2:
        assert check.plan.tasks[1].args["text"] == placeholder(check.plan.tasks[0].id)
    else:
        assert check.plan.tasks[0].args["text"] in request_text and "say" not in check.plan.tasks[0].args["text"]


def test_speech_after_a_question_no_step_answers_speaks_the_answer(tmp_path):
    """"what's the gist of it? read it to me": the answer is what is spoken, so the question gets
    its step though the model is unsure of it; before, the whole file was read aloud. A polite
    command put as a question ("would you kindly ...?") is no question to answer."""
    check = OfflinePlanner().plan("what's the gist of it? read it to me", attach(tmp_path, "minutes.txt"))
    gist, speech = check.plan.tasks
    assert tasks_of(check) == ["summarization", "text-to-speech"]
    assert speech.args["text"] == placeholder(gist.id)
    check = OfflinePlanner().plan("would you kindly turn welcome.txt into audio?", attach(tmp_path, "welcome.txt"))
    assert tasks_of(check) == ["text-to-speech"]


def test_speech_after_a_question_with_no_file_speaks_the_chat_partners_answer():
    """"who painted the mona lisa? say it out loud": before, the words "Say it out loud" were spoken."""
    check = OfflinePlanner().plan("who painted the mona lisa? say it out loud", [])
    assert tasks_of(check) == ["conversational", "text-to-speech"]
    answer, speech = check.plan.tasks
    assert answer.args["text"] == "Who painted the mona lisa?" and speech.args["text"] == placeholder(answer.id)


@pytest.mark.parametrize("request_text, question", [
    ("how tall are you? say it out loud", "How tall are you?"),  # about the assistant, hearing it plainly asked
    ("hi jarvis, what's the speed of sound? tell me out loud", "what's the speed of sound?"),  # after a greeting
    ("do penguins live in the arctic? answer aloud", "Do penguins live in the arctic?"),  # a yes/no question
    ("hey buddy, which moon is the biggest? read it out loud", "which moon is the biggest?"),  # one sentence to the parser
    ("what is the capital of peru? answer out loud", "What is the capital of peru?"),  # read as a picture question
    ("good morning! how many bones are in a human hand? say the answer aloud", "how many bones are in a human hand?"),
    ("are you still there? reply out loud", "Are you still there?"),  # the reply is the chat partner's
    ("whats the speed of sound in air? say it out loud", "speed of sound in air?"),  # read as a sound; the speech is no sound of it
])
def test_speech_after_a_question_for_the_chat_speaks_the_chat_partners_answer(request_text, question):
    """A question with no file or quoted words to answer it from, then speech: the chat partner
    answers the question and speech reads its answer. Before, the speech read its own command
    ("Say it out loud"), or a reader of passages looked for the answer in the question itself."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == ["conversational", "text-to-speech"]
    answer, speech = check.plan.tasks
    assert question.lower() in answer.args["text"].lower() and speech.args["text"] == placeholder(answer.id)
    assert not any(w in answer.args["text"].lower() for w in ("jarvis", "buddy")), answer.args["text"]  # said to the assistant


@pytest.mark.parametrize("request_text, asked", [
    ("toss a coin for me and tell me the result out loud", "Toss a coin for me"),
    ("choose a random fruit, then say the answer aloud", "Choose a random fruit"),
    ("think of an animal that starts with z and read it out to me", "Think of an animal that starts with z"),
])
def test_speech_of_a_result_no_step_makes_speaks_the_chat_partners_answer(request_text, asked):
    """The speech says only how to answer ("tell me the result out loud"), and no step makes what
    it is the result of: the chat partner does what the words before ask and its answer is spoken.
    Before, the speech read its own command aloud ("Tell me the result out loud")."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == ["conversational", "text-to-speech"]
    answer, speech = check.plan.tasks
    assert answer.args["text"] == asked and speech.args["text"] == placeholder(answer.id)


def test_speech_that_says_what_to_speak_is_not_taken_for_a_result():
    """Words of its own to speak ("... tell the kids dinner is ready out loud") or a step before it
    that makes the words: no chat step is added."""
    check = OfflinePlanner().plan("go downstairs and tell the kids dinner is ready out loud", [])
    assert "conversational" not in tasks_of(check) and "text-to-speech" in tasks_of(check)
    check = OfflinePlanner().plan("translate 'sleep well' into Spanish and tell me the result out loud", [])
    assert tasks_of(check) == ["translation", "text-to-speech"]


@pytest.mark.parametrize("request_text", ["play the song i like best", "play a relaxing song", "play the morning news podcast"])
def test_media_to_play_is_no_speech(request_text):
    """Playing a song or a podcast is no expert's work and no words to speak (before, speech read
    "Play a relaxing song" aloud): the chat answers."""
    assert tasks_of(OfflinePlanner().plan(request_text, [])) == []


@pytest.mark.parametrize("request_text", ["read me my latest texts", "read out my to-do list please", "read the football news",
                                          "record an audio memo", "hey jarvis, make a voice note"])
def test_speech_with_no_words_to_speak_is_not_planned(request_text):
    """Messages, mail, lists and the news live on the phone or the web, which the assistant cannot
    reach, and a voice memo with nothing said for it is one the user would record: no words to
    speak (before, speech said "my latest texts" or "record an audio memo" aloud). The chat answers."""
    assert tasks_of(OfflinePlanner().plan(request_text, [])) == []


def test_what_the_user_gives_is_read_whatever_it_is_called(tmp_path):
    check = OfflinePlanner().plan("read out my shopping list", attach(tmp_path, "list.txt"))
    assert tasks_of(check) == ["text-to-speech"]
    check = OfflinePlanner().plan("record a voice memo saying the plumber comes at noon", [])
    assert tasks_of(check) == ["text-to-speech"] and check.plan.tasks[0].args["text"] == "the plumber comes at noon"
    check = OfflinePlanner().plan("make a voice note that sounds as cheerful as I feel about passing my exam", [])
    assert tasks_of(check) == ["text-to-speech"]  # what it is about is said


def test_what_is_played_after_words_are_made_is_speech():
    assert tasks_of(OfflinePlanner().plan("write a short rhyme and play it for me", [])) == ["text-generation", "text-to-speech"]


@pytest.mark.parametrize("request_text", ["compose a short lullaby and sing it to me", "sing me a song about the sea"])
def test_singing_is_asked_as_speech(request_text):
    """A voice assistant cannot sing, but "sing it to me" asks to hear the words: the song is written
    and spoken. Before, no speech step was planned."""
    assert tasks_of(OfflinePlanner().plan(request_text, [])) == ["text-generation", "text-to-speech"]


@pytest.mark.parametrize("request_text", ["how many planets are in the solar system?", "what is the capital of peru?"])
def test_a_question_with_nothing_to_read_is_answered_as_chat(request_text):
    """No passage, file or picture to answer from: no step runs and nothing is asked to be attached
    (a picture question read into it said "attach them and ask again")."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == [] and not check.missing
    assert not any("attach" in note for note in check.plan.notes)


@pytest.mark.parametrize("request_text", ["transcribe this for me", "caption this one"])
def test_a_command_on_a_file_not_given_still_says_to_attach_one(request_text):
    """A command, not a question: the file was forgotten, and the user is told to attach it."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == [] and any("attach" in note for note in check.plan.notes)


def test_a_question_on_quoted_words_is_still_answered_from_them():
    check = OfflinePlanner().plan('"The library shuts at 8 pm on Fridays." so when does it shut on friday? tell me out loud', [])
    assert tasks_of(check) == ["question-answering", "text-to-speech"]
    assert check.plan.tasks[0].args["context"] == "The library shuts at 8 pm on Fridays."


@pytest.mark.parametrize("request_text, tasks", [
    ("segmentation + depth", ["image-segmentation", "depth-estimation"]),
    ("depth est + seg pls", ["depth-estimation", "image-segmentation"]),
    ("obj detection, thx", ["object-detection"]),  # not only thanks: a task is named
])
def test_a_task_named_by_the_last_word_of_its_name_on_the_file_given(tmp_path, request_text, tasks):
    """Terse requests name a task by its name's last word ("seg" for segmentation); the model,
    seeing one word, is unsure of it."""
    assert tasks_of(OfflinePlanner().plan(request_text, attach(tmp_path, "garden.jpg"))) == tasks


def test_a_last_word_two_tasks_on_the_files_given_end_in_names_neither():
    detector = LearnedDetector()
    labels = detector.model.labels
    reading = read_request("classification pls")
    seg, views, _ = detector.scores(reading, [])
    sound = labels.index("audio-classification")
    assert named_by_task_name([], views, labels, reading, seg, ["audio"]) == [(0, sound, "audio-classification")]
    assert named_by_task_name([], views, labels, reading, seg, ["audio", "image"]) == []
    assert named_by_task_name([], views, labels, reading, seg, []) == []  # no file it could be of


def test_a_label_of_a_recording_asked_in_a_clause_of_its_own_is_its_classification(tmp_path):
    """"..., and tell me the genre": the word for what kind of sound it is names the step on the
    recording given, though the model, reading "tell me", is unsure of it."""
    check = OfflinePlanner().plan("strip the vocals from track.wav and tell me the genre", attach(tmp_path, "track.wav"))
    assert tasks_of(check) == ["audio-to-audio", "audio-classification"]


def test_a_label_asked_of_another_recording_is_its_classification_not_the_step_again(tmp_path):
    """"transcribe X, then the genre of Y": the step asked of the second file is what kind of sound
    it is, not a second transcription (the model, reading the clause beside the first, leaned to it)."""
    files = attach(tmp_path, "lecture.wav", "track.mp3")
    check = OfflinePlanner().plan("transcribe lecture.wav, then the genre of track.mp3", files)
    assert [(t.task, t.args["audio"]) for t in check.plan.tasks] == [
        ("automatic-speech-recognition", str(files[0].path)), ("audio-classification", str(files[1].path))]


@pytest.mark.parametrize("request_text, tasks", [
    ("what genre would you call this", ["audio-classification"]),
    ("what mood am I in, in this memo", ["audio-classification"]),
    ("tell me the mood of this voicemail", ["automatic-speech-recognition", "text-classification"]),  # of the words
])
def test_what_kind_of_sound_a_recording_is_is_its_classification_not_its_words(tmp_path, request_text, tasks):
    """A voice memo's mood or a song's genre: the model, used to memos being transcribed, read
    these as a transcription alone; a step that reads the words still gets them."""
    assert tasks_of(OfflinePlanner().plan(request_text, attach(tmp_path, "greeting.m4a"))) == tasks


@pytest.mark.parametrize("request_text, tasks", [
    ("img: a cabin in the woods, oil painting look", ["text-to-image"]),
    ("paint a sailboat on a calm lake, watercolor style", ["text-to-image"]),  # the model leans to an edit
    ("draw a lighthouse and then turn it into a pencil sketch", ["text-to-image", "image-to-image"]),
])
def test_a_style_asked_with_a_new_picture_is_its_prompt_not_an_edit(request_text, tasks):
    """No picture is given and the clause has one verb: the style is part of what to draw, and a
    change of a picture with none given, made or pointed at is the picture's making; an edit asked
    with a verb of its own is a step of its own, and "make this photo brighter" with no photo still
    asks for the photo."""
    check = OfflinePlanner().plan(request_text, [])
    assert tasks_of(check) == tasks
    if tasks == ["text-to-image"]:
        assert check.plan.tasks[0].args["text"] == request_text.split(": ")[-1].removeprefix("paint ")
    assert OfflinePlanner().plan("make this photo brighter", []).missing == ["a photo or picture"]


def test_a_text_step_asked_with_a_translation_in_one_clause_is_kept():
    """"boil down budget_2025.txt into Dutch": the language takes most of the clause's score from
    the summary it is asked of, as speech words do (``_beside_speech``)."""
    check = OfflinePlanner().plan("boil down budget_2025.txt into Dutch", [])
    assert tasks_of(check) == ["summarization", "translation"]
    assert check.plan.tasks[1].args == {"text": placeholder(check.plan.tasks[0].id), "target_language": "Dutch"}


def test_a_question_between_labels_asks_for_a_judgement():
    """"..., and is it friendly or is it threatening": no verb of doing, but a choice between
    labels asks for the step that judges, though the model is unsure of it; a question without a
    choice ("and is it long") asks for nothing here."""
    detector = LearnedDetector()
    m = detector.model
    i2t, tc = (m.labels.index(x) for x in ("image-to-text", "text-classification"))

    def steps_added(second_clause: str) -> list[tuple[int, int, str]]:
        seg, views, P = detector.scores(read_request("what does the text on flyer.jpg say, " + second_clause), [])
        assert len(views) == 2
        P[:] = 0.01
        P[0, i2t] = 0.9
        P[1, tc] = m.threshold * FALLBACK_SHARE + 0.01  # under a clause's own bar
        return _unclaimed_clause_steps([(0, i2t, "image-to-text")], P, views, m, seg, detector.kb.media_words)

    assert steps_added("and is it friendly or is it threatening") == [(1, tc, "text-classification")]
    assert steps_added("and whether it sounds urgent or not") == [(1, tc, "text-classification")]
    assert steps_added("and is it long") == []


@pytest.mark.parametrize("request_text", [
    "transcribe > translate spanish > summary > read it out",
    "transcript > english > summary > read out",
])
def test_steps_of_one_terse_clause_run_in_the_order_they_were_named(tmp_path, request_text):
    # "out" leans to translation a little (as it does to speech): the translation is placed at the
    # word that tells it from the clause's other steps, so it runs before the summary named after it
    check = OfflinePlanner().plan(request_text, attach(tmp_path, "standup.m4a"))
    assert tasks_of(check) == ["automatic-speech-recognition", "translation", "summarization", "text-to-speech"]
    asr, translation, summary, speech = check.plan.tasks
    assert translation.args["text"] == placeholder(asr.id)
    assert summary.args["text"] == placeholder(translation.id)
    assert speech.args["text"] == placeholder(summary.id)


def test_evidence_is_the_word_that_tells_a_step_from_its_rivals():
    from jarvis_desktop.planning.evidence import evidence_position
    from jarvis_desktop.planning.segment import Token
    from jarvis_desktop.planning.stepmodel import StepModel

    words = ["summary", "read", "out"]
    tokens = [Token(w, 10 * k, w, w, "NOUN", "dep") for k, w in enumerate(words)]
    vocab = {"w:summary": 0, "w:out": 1}
    # label 0 (a summary) leans on "summary" and a little on "out"; label 1 (speech) leans on "out"
    model = StepModel(["a", "b"], vocab, np.array([[0.3, 0.0], [0.5, 0.9]], dtype=np.float32), np.zeros(2, dtype=np.float32))
    assert evidence_position(model, tokens, 0, [], default=-1) == 20  # alone, its strongest word
    assert evidence_position(model, tokens, 0, [1], default=-1) == 0  # beside speech, its own word
    assert evidence_position(model, [], 0, [1], default=-1) == -1


def test_a_clause_whose_verb_draws_a_new_thing_gets_the_picture_however_unsure_the_model():
    """"describe this photo, then sketch a heron": the model leans to steps on the photo given, but
    the verb names what is made. Not where a map of the photo guides a picture ("the pose of this,
    then sketch a heron" draws the heron in that pose), nor a drawing on the photo."""
    detector = LearnedDetector()
    m = detector.model
    cap, t2i, guided = (m.labels.index(x) for x in ("image-to-text", "text-to-image", "guided"))
    for request, found, want in [
        ("describe this photo, then sketch a heron", [(0, cap, "image-to-text")], [(1, t2i, "text-to-image")]),
        ("the pose of this, then sketch a heron", [(0, guided, "guided")], []),
        ("describe this photo, then sketch a heron on the roof", [(0, cap, "image-to-text")], []),
        ("find the boats in this photo, then draw a circle around each boat", [(0, cap, "image-to-text")], []),
    ]:
        seg, views, P = detector.scores(read_request(request), [])
        assert len(views) == 2
        P[:] = 0.001
        assert _unclaimed_clause_steps(found, P, views, m, seg, detector.kb.media_words, ["image"]) == want, request


@pytest.mark.parametrize("request_text, tasks", [
    ("I already asked you for a picture of a heron last week; this time write a short poem about herons",
     ["text-generation"]),
    ("We generated a video of the parade yesterday. Now write a haiku about the parade", ["text-generation"]),
])
def test_a_thing_told_as_made_or_asked_before_is_not_made_again(request_text, tasks):
    """"I already asked for a dog picture; this time write a poem": the picture is an account, not a request."""
    assert tasks_of(OfflinePlanner().plan(request_text)) == tasks


def test_a_thing_asked_in_the_past_tense_alone_is_still_made():
    """"I wanted a picture of ...": a polite request, no other clause asking for anything."""
    assert tasks_of(OfflinePlanner().plan("I wanted a picture of a heron on a frozen lake")) == ["text-to-image"]

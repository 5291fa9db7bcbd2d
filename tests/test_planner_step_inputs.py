"""What each step of an offline plan reads: the quoted text, the result a clause names, its own
clause of a command list, a prompt without the other steps. Every sentence was written for these
tests (none is in the training requests or the benchmark sets)."""

from __future__ import annotations

import pytest

from jarvis_desktop.pipeline.plan import placeholder
from jarvis_desktop.planning.each import EACH_FILE_RE, EACH_RE, asks_each
from jarvis_desktop.planning.offline import OfflinePlanner
from jarvis_desktop.planning.step_words import tidy_question
from planner_helpers import attach, tasks_of


@pytest.fixture(scope="module")
def planner() -> OfflinePlanner:
    return OfflinePlanner()


def test_a_label_asked_beside_another_step_on_quoted_text_reads_the_quote(planner):
    """"a summary and the tone of this: '...'": the tone is of the quoted text, not of the summary."""
    quote = "The rooms were spotless but breakfast was cold every single morning."
    check = planner.plan(f"sum this up and tell me if the tone is positive or negative: '{quote}'")
    assert tasks_of(check) == ["summarization", "text-classification"]
    assert [t.args["text"] for t in check.plan.tasks] == [quote, quote]


@pytest.mark.parametrize("request_text, then", [
    ("sum this up, then tell me if the summary sounds positive or negative: "
     "'The rooms were spotless but breakfast was cold every single morning.'", "text-classification"),
    # a result named after the quote it was made of ("this article: '...' ... the summary")
    ("Summarise this article: 'The council approved a new park on Elm Street after months "
     "of debate among residents and local businesses.' Then read the summary aloud.", "text-to-speech"),
])
def test_a_step_asked_of_a_named_result_still_reads_that_result(planner, request_text, then):
    check = planner.plan(request_text)
    assert tasks_of(check) == ["summarization", then]
    assert check.plan.tasks[1].args["text"] == placeholder(check.plan.tasks[0].id)


def test_a_generation_prompt_leaves_out_the_other_steps(planner):
    """"write a poem about rain, then draw a picture of it": the poem's prompt is not asked to draw."""
    check = planner.plan("compose a short poem about rain on a tin roof, then draw a picture of it")
    assert tasks_of(check) == ["text-generation", "text-to-image"]
    assert check.plan.tasks[0].args["text"] == "Compose a short poem about rain on a tin roof"


def test_an_opening_first_is_not_part_of_the_picture(planner):
    """"first paint a lantern ...": "first" orders the steps; the picture is the lantern."""
    check = planner.plan("first paint a lantern floating on a lake, then describe it")
    assert tasks_of(check) == ["text-to-image", "image-to-text"]
    assert check.plan.tasks[0].args["text"] == "a lantern floating on a lake"


def test_a_generation_prompt_keeps_what_the_request_says_around_it(planner):
    check = planner.plan("My sister turns forty on Friday. Write a toast for her party and read it aloud. She loves hiking.")
    assert tasks_of(check) == ["text-generation", "text-to-speech"]
    prompt = check.plan.tasks[0].args["text"]
    assert "forty" in prompt and "hiking" in prompt and "aloud" not in prompt


@pytest.mark.parametrize("request_text, clauses", [
    ("translate letter.txt into German, say the translation, then caption pic.jpg",
     ["translate letter.txt into German", "say the translation", "then caption pic.jpg"]),
    ("shorten notes.txt, speak the summary, caption whiteboard.jpg",
     ["shorten notes.txt", "speak the summary", "caption whiteboard.jpg"]),
    # the parser takes "say" for an auxiliary of "result"
    ("classify puppy_pic.jpg, say result", ["classify puppy_pic.jpg", "say result"]),
    # "say" hung on the verb after the colon: the comma and "and" still open a new command
    ("from this article who won the race, and say it out loud: the race was won by a runner from kenya",
     ["from this article who won the race", "say it out loud: the race was won by a runner from kenya"]),
    # ... or a question, fillers aside
    ("blur the background of this photo, and um, what kind of dog is that",
     ["blur the background of this photo", "um, what kind of dog is that"]),
    # the first word, a command, tagged as a noun with a verb coordinated to it
    ("reply as a butler and say it out loud: 'the tea is cold'", ["reply as a butler", "say it out loud: 'the tea is cold'"]),
    # ... or for part of a file's name
    ("caption garden.jpg for me and also tell me how many birds are in it",
     ["caption garden.jpg for me", "also tell me how many birds are in it"]),
    # a question, then a command: the command's verb is the sentence's root
    ("what's the summary of this podcast, tell me out loud", ["what's the summary of this podcast", "tell me out loud"]),
    # "then" before a verb, with no comma, and the parser hanging "then" on the verb before it
    ("make a picture of a knight over a castle then describe it back to me with your voice",
     ["make a picture of a knight over a castle", "then describe it back to me with your voice"]),
    # a step to do first, in a clause of its own
    ("give me the main points of lecture.wav after transcribing it", ["give me the main points of lecture.wav", "after transcribing it"]),
    ("draw whatever this song describes, after you transcribe it", ["draw whatever this song describes", "after you transcribe it"]),
    # a plus between two terse commands
    ("who is speaking + what language, memo.wav", ["who is speaking +", "what language, memo.wav"]),
    # an inverted question after ", and"
    ('who does this note mention, and is it angry or calm: "tell Ana the van is late"',
     ["who does this note mention", 'is it angry or calm: "tell Ana the van is late"']),
])
def test_commands_listed_with_commas_are_steps_of_their_own(request_text, clauses):
    """A list of commands ("do A, do B, then C"), where the small parser makes one command the
    subject of the next or a verb a noun, is cut into one clause per command when planning (the
    training texts keep the parser's clauses, which the shipped weights were fitted on)."""
    from jarvis_desktop.planning.extract import read_request
    from jarvis_desktop.planning.segment import segment

    reading = read_request(request_text)
    got = [c.text.strip(" ,") for c in segment(reading.text, [], True, commands=True).clauses]
    assert [g.removeprefix(", ").removeprefix("and ") for g in got] == clauses
    assert len(segment(reading.text, [], True).clauses) < len(clauses)  # the parser's own cut, for training


@pytest.mark.parametrize("request_text, clauses", [
    ("for the club: (1) write a welcome note, (2) translate the note into Dutch, (3) draw a windmill at dusk",
     ["for the club:", "(1) write a welcome note", "(2) translate the note into Dutch", "(3) draw a windmill at dusk"]),
    ("1. Caption harbour.jpg 2. Read the caption aloud", ["1. Caption harbour.jpg", "2. Read the caption aloud"]),
    ("we leave at 6. Then remind me to pack", ["we leave at 6.", "Then remind me to pack"]),  # a time, not a list number
])
def test_each_number_of_a_numbered_list_opens_the_command_it_numbers(request_text, clauses):
    from jarvis_desktop.planning.segment import segment

    assert [c.text.strip(" ,") for c in segment(request_text, [], True, commands=True).clauses] == clauses


def test_a_question_on_a_passage_is_answered_before_it_is_spoken(planner):
    check = planner.plan("from this article who won the race, and say it out loud: the race was won by a runner from kenya in record time")
    assert tasks_of(check) == ["question-answering", "text-to-speech"]
    answer, speech = check.plan.tasks
    assert answer.args["context"] == "the race was won by a runner from kenya in record time"
    assert speech.args["text"] == placeholder(answer.id)


def test_a_question_asked_before_a_command_is_asked_without_it(planner, tmp_path):
    check = planner.plan("when is the payment due on this bill, translate the answer to french and say it", attach(tmp_path, "bill.png"))
    assert tasks_of(check) == ["document-question-answering", "translation", "text-to-speech"]
    assert check.plan.tasks[0].args["text"] == "When is the payment due"


def test_a_made_picture_is_described_aloud(planner):
    check = planner.plan("draw a dragon over a castle then describe it out loud")
    assert tasks_of(check) == ["text-to-image", "image-to-text", "text-to-speech"]
    made, caption, speech = check.plan.tasks
    assert caption.args["image"] == placeholder(made.id) and speech.args["text"] == placeholder(caption.id)


@pytest.mark.parametrize("request_text, file, words", [
    ("make harbour_selfie.jpg look like a watercolour", "harbour_selfie.jpg", "Make it look like a watercolour"),
    ("turn my photo street_at_noon.png into a night scene with lanterns", "street_at_noon.png",
     "Turn it into a night scene with lanterns"),
    ("make the sky in this photo look stormy", "sky.jpg", "Make the sky in it look stormy"),  # the sky stays
    # the help asked for is not part of the edit
    ("could you help me turn the lawn in garden.jpg brown, like in a drought", "garden.jpg",
     "Turn the lawn in it brown, like in a drought"),
])
def test_an_edit_calls_its_picture_it(planner, tmp_path, request_text, file, words):
    """The editing model is given the picture; its name or "my photo" in the instruction only blurs it."""
    check = planner.plan(request_text, attach(tmp_path, file))
    assert tasks_of(check) == ["image-to-image"]
    assert check.plan.tasks[0].args["text"] == words


def test_commands_joined_by_a_plus_are_both_run(planner, tmp_path):
    check = planner.plan("depth + objects, kitchen.jpg", attach(tmp_path, "kitchen.jpg"))
    assert tasks_of(check) == ["depth-estimation", "object-detection"]
    assert all(t.args["image"].endswith("kitchen.jpg") for t in check.plan.tasks)


def test_each_listed_command_reads_its_own_file(planner, tmp_path):
    check = planner.plan("translate letter.txt into German, say the translation, then caption pic.jpg",
                         attach(tmp_path, "letter.txt", "pic.jpg"))
    assert tasks_of(check) == ["translation", "text-to-speech", "image-to-text"]
    translation, speech, caption = check.plan.tasks
    assert translation.args["text"].endswith("letter.txt") and caption.args["image"].endswith("pic.jpg")
    assert speech.args["text"] == placeholder(translation.id)


def _command_clauses(request_text: str) -> list[str]:
    from jarvis_desktop.planning.extract import read_request
    from jarvis_desktop.planning.segment import segment

    reading = read_request(request_text)
    protected = [(q.start, q.end) for q in reading.quotes]
    return [c.text.strip(" ,?.") for c in segment(reading.text, protected, True, commands=True).clauses]


def test_a_list_of_gerunds_is_one_step_each():
    """"could you help by estimating X, segmenting Y, and then identifying Z": the parser hangs
    the second gerund on the first as an adverbial clause, so without a cut both steps share a
    clause and the weaker one (both read the photo) is dropped as a rival."""
    got = _command_clauses("Could you help me in cleaning up the audio of the lecture, transcribing the lecture for my "
                           "notes, and then summarising the main points?")
    assert got == ["Could you help me in cleaning up the audio of the lecture", "transcribing the lecture for my notes",
                   "and then summarising the main points"]


@pytest.mark.parametrize("request_text, clauses", [
    # the words before the comma are only "and then, separately": they belong to the command after it
    ("Would you first blur the photo.jpg background, and then, separately, tell me what breed the dog is?",
     ["Would you first blur the photo.jpg background", "and then, separately, tell me what breed the dog is"]),
    # "then a city ...": a thing to make, not a command of its own (a command's verb has no article)
    ("make an edge map of this sketch, then a castle with the same outline",
     ["make an edge map of this sketch, then a castle with the same outline"]),
    # "whether A and B, 'quoted', say the same": "say" is the verb of the question, not a command
    ("Then tell me whether his reply and my note, 'see you at noon', say the same thing",
     ["Then tell me whether his reply and my note, 'see you at noon', say the same thing"]),
])
def test_a_comma_inside_one_command_is_not_cut(request_text, clauses):
    assert _command_clauses(request_text) == clauses


def test_steps_that_wait_for_one_step_keep_the_order_they_were_asked_in(planner):
    """Speech made of quoted words, then cleaned, then transcribed: all three wait for the quote's
    speech step; the cleaning still comes before the transcript of "it", which reads the cleaned audio."""
    check = planner.plan("Here is my line: 'The meeting moves to Thursday.' Could you turn this text into speech, "
                         "remove the hiss from the audio, and then transcribe it back into text?")
    assert tasks_of(check) == ["text-to-speech", "audio-to-audio", "automatic-speech-recognition"]
    speech, cleaned, transcript = check.plan.tasks
    assert cleaned.args["audio"] == placeholder(speech.id)
    assert transcript.args["audio"] == placeholder(cleaned.id)


def test_a_question_next_to_the_words_that_name_a_file_is_asked_of_it(planner, tmp_path):
    """"should I be worried? pic attached.": the question is about the photo, though the clause
    that names it ("pic attached") asks for nothing."""
    check = planner.plan("should I be worried? pic attached. also, what is the dog barking at in the clip",
                         attach(tmp_path, "rash.jpg", "bark.wav"))
    assert sorted(tasks_of(check)) == ["audio-classification", "visual-question-answering"]
    vqa = next(t for t in check.plan.tasks if t.task == "visual-question-answering")
    assert vqa.args["image"].endswith("rash.jpg")


@pytest.mark.parametrize("request_text, tasks", [
    ('Which pile does this note belong in, invoices, receipts or letters? '
     '"Payment of 240 euros received on 3 May for the spring workshop, thank you."', ["text-classification"]),
    # a choice between "the same or not" compares two texts
    ('Are these two notes saying the same thing or not? "Meet at noon." and "We meet at 12."', ["sentence-similarity"]),
])
def test_a_question_offering_labels_for_given_text_is_a_classification(planner, request_text, tasks):
    """A question that offers a choice of labels for the text the request gives asks for its label;
    a question about a document, with no document given, is not what it asks."""
    check = planner.plan(request_text)
    assert tasks_of(check) == tasks
    assert check.plan.tasks[0].args["text"].startswith(("Payment", "Meet"))


@pytest.mark.parametrize("request_text, names, task", [
    ("Here's a screenshot of my phone bill and a voice memo from my wife asking something about it. "
     "Please transcribe her question and then answer it using the bill.", ("bill.png", "memo.mp3"), "document-question-answering"),
    ("Please transcribe ask.wav, where I ask a question, and then answer that question from this passage: "
     "'The pool opens at seven on weekdays and at nine on weekends; it closes every day at eight.'",
     ("ask.wav",), "question-answering"),
])
def test_a_question_asked_in_a_recording_is_answered_from_its_transcript(planner, tmp_path, request_text, names, task):
    """The question is the recording's words: the answering step reads the transcript as its question
    (and a quoted passage next to it is what it is answered from)."""
    check = planner.plan(request_text, attach(tmp_path, *names))
    tasks = tasks_of(check)
    assert tasks == ["automatic-speech-recognition", task]
    transcript, answer = check.plan.tasks[0], check.plan.tasks[-1]
    assert answer.args["text"] == placeholder(transcript.id)
    if task == "question-answering":
        assert answer.args["context"].startswith("The pool opens")


@pytest.mark.parametrize("request_text, spoken", [
    # by the name the request gave the quote where it quoted it
    ("Is this headline upbeat: 'Local team wins the cup after forty years'? Also pick out the names in it, "
     "then read the headline aloud.", "Local team wins the cup after forty years"),
    # by order among the quotes
    ("Do 'The shop shuts at six' and 'We close at 6 pm' mean the same? Then read the second one out loud.",
     "We close at 6 pm"),
])
def test_a_quote_pointed_at_in_words_is_what_the_step_reads(planner, request_text, spoken):
    check = planner.plan(request_text)
    speech = next(t for t in check.plan.tasks if t.task == "text-to-speech")
    assert speech.args["text"] == spoken


def test_a_picture_with_its_own_subject_is_not_made_from_an_unrelated_result(planner):
    """"..., and then also a picture of lanterns I can put in the email": no email was written, so
    "the email" points back at nothing; the picture is made from its own words, not the translation."""
    check = planner.plan("Please translate 'The shop reopens on Friday after the holidays.' into German, and then also "
                         "create a nice picture of paper lanterns I can put in the email.")
    assert tasks_of(check) == ["translation", "text-to-image"]
    assert "lanterns" in check.plan.tasks[1].args["text"]


@pytest.mark.parametrize("request_text, names, tasks", [
    ("this voicemail from my landlord, it's all in German, can you tell me what he says in English", ["landlord.wav"],
     ["automatic-speech-recognition", "translation"]),
    ("'Bom dia, a sua encomenda chegou' is in Portuguese, what is it in French?", [], ["translation"]),
    ("this text is in Italian and I need it in French: 'Buongiorno a tutti, la riunione è alle dieci.'", [],
     ["translation"]),
])
def test_the_language_a_text_is_in_is_not_asked_for(planner, tmp_path, request_text, names, tasks):
    """"it's all in German, ... tell me in English": one translation, into the language asked for."""
    check = planner.plan(request_text, attach(tmp_path, *names))
    assert tasks_of(check) == tasks
    assert check.plan.tasks[-1].args["target_language"] == ("English" if names else "French")


@pytest.mark.parametrize("request_text, question, passage", [
    ('From this passage, who signs off spending over $5,000? Say it out loud. "Spending under $5,000 is signed '
     'off by the head of department; anything larger needs the bursar."', "Who signs off spending over $5,000?",
     "Spending under $5,000 is signed off by the head of department; anything larger needs the bursar."),
    ("according to this, when did the museum open: the city museum opened its doors in 1921 after years of fundraising",
     "When did the museum open?", "the city museum opened its doors in 1921 after years of fundraising"),
    ("Using only this text, can I return a sale item? 'Refunds within 30 days with a receipt. Sale items can only "
     "be exchanged.'", "Can I return a sale item?", "Refunds within 30 days with a receipt. Sale items can only be exchanged."),
])
def test_a_question_over_given_text_is_asked_without_the_text(planner, request_text, question, passage):
    """The reader is given the question alone ("from this passage", "according to this" and the passage
    itself taken out), and a comma inside a number ("$5,000") does not cut the question short."""
    check = planner.plan(request_text)
    assert tasks_of(check)[0] == "question-answering"
    assert check.plan.tasks[0].args == {"text": question, "context": passage}
    if "out loud" in request_text:
        assert tasks_of(check) == ["question-answering", "text-to-speech"]
        assert check.plan.tasks[1].args == {"text": placeholder(0)}


@pytest.mark.parametrize("request_text", [
    "Please strip the fridge hum out of porch_talk.wav first, and then transcribe the cleaned-up audio.",
    "cut the crackle out of tape.wav first, then transcribe the cleaned-up recording",
])
def test_a_step_asked_first_is_not_pulled_into_the_clause_that_names_its_result(planner, tmp_path, request_text):
    """"the cleaned-up audio" in the later clause asks for the cleaning more strongly than the first
    clause's own words do; the cleaning is still the first clause's step, and the transcript is of
    its result, not of the noisy file."""
    name = "porch_talk.wav" if "porch_talk" in request_text else "tape.wav"
    check = planner.plan(request_text, attach(tmp_path, name))
    assert tasks_of(check) == ["audio-to-audio", "automatic-speech-recognition"]
    assert check.plan.tasks[1].args == {"audio": placeholder(0)}


@pytest.mark.parametrize("request_text, tasks", [
    ("pretend you're a medieval knight and answer my son: \"Did you ever fight a dragon?\"", ["conversational"]),
    ("answer this out loud please: 'is it healthier to swim or to run?'", ["conversational", "text-to-speech"]),
    # a passage given: the answer is found in it
    ("answer 'when does it open?' from this: The shop opens at 9 every day except Sunday.", ["question-answering"]),
])
def test_a_quoted_question_with_no_passage_is_talked_over(planner, request_text, tasks):
    """With no text to find the answer in, a reader would look for it inside the question itself
    (or the question would only be read aloud): the chat model answers it, and speaks its answer."""
    check = planner.plan(request_text)
    assert tasks_of(check) == tasks
    assert check.plan.tasks[0].args["text"].rstrip("?").endswith(("dragon", "run", "open"))
    if "text-to-speech" in tasks:
        assert check.plan.tasks[1].args == {"text": placeholder(0)}


@pytest.mark.parametrize("request_text, names, task", [
    ("give me a short summary of each of these two reports, then tell me if the summaries agree",
     ("north.txt", "south.txt"), "summarization"),
    ("please read out both letters, separately", ("to_anna.txt", "to_ben.txt"), "text-to-speech"),
])
def test_a_step_asked_of_each_given_text_file_runs_once_per_file(planner, tmp_path, request_text, names, task):
    files = attach(tmp_path, *names)
    check = planner.plan(request_text, files)
    steps = [t for t in check.plan.tasks if t.task == task]
    assert sorted(t.args["text"] for t in steps) == sorted(str(f.path) for f in files)
    compared = [t for t in check.plan.tasks if t.task == "sentence-similarity"]
    for t in compared:  # the comparison reads both results, not a file
        assert {t.args["text"], t.args["text2"]} == {placeholder(s.id) for s in steps}


def test_a_control_map_asked_of_each_photo_guides_one_image_per_photo(planner, tmp_path):
    files = attach(tmp_path, "left.jpg", "right.jpg")
    check = planner.plan("copy the pose of both dancers into two drawings of astronauts, one from each", files)
    maps = [t for t in check.plan.tasks if t.task.endswith("-control")]
    made = [t for t in check.plan.tasks if t.task.endswith("-text-to-image")]
    assert sorted(t.args["image"] for t in maps) == sorted(str(f.path) for f in files)
    assert sorted(t.args["image"] for t in made) == sorted(placeholder(t.id) for t in maps)


@pytest.mark.parametrize("request_text", [
    "recolour my picture as my daughter wants in her recording",
    "can you redo the picture how she asks in the recording",
    "alter this image however he asks in the clip",
])
def test_an_edit_done_the_way_a_recording_asks_is_made_from_its_transcript(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "room.jpg", "note.wav"))
    assert tasks_of(check) == ["automatic-speech-recognition", "image-to-image"]
    assert check.plan.tasks[1].args["text"] == placeholder(check.plan.tasks[0].id)


@pytest.mark.parametrize("request_text, second", [
    ("pull the cyclist out of the background in ride.jpg, and also say what the photo shows", "image-to-text"),
    ("estimate the depth of ride.jpg; a caption too", "image-to-text"),
])
def test_one_more_step_asked_of_the_same_photo_reads_the_photo_not_the_map(planner, tmp_path, request_text, second):
    """"also"/"too" after a cut-out or a depth map asks for more about the photo: the map is not it."""
    files = attach(tmp_path, "ride.jpg")
    check = planner.plan(request_text, files)
    assert tasks_of(check)[1] == second
    assert [t.args["image"] for t in check.plan.tasks] == [str(files[0].path)] * 2


def test_also_asked_of_a_made_picture_named_as_made_reads_it(planner, tmp_path):
    check = planner.plan("cut the dog out of porch.jpg and also describe the segmented image", attach(tmp_path, "porch.jpg"))
    assert tasks_of(check) == ["image-segmentation", "image-to-text"]
    assert check.plan.tasks[1].args["image"] == placeholder(check.plan.tasks[0].id)


@pytest.mark.parametrize("request_text, language", [
    ("write me a Portuguese version of this: 'See you at the station at noon.'", "Portuguese"),
    ("my grandfather only reads Greek, so could this reach him in his language: 'The doctor moved your appointment to Thursday.'", "Greek"),
    ("translate 'good luck with the exam' for my Welsh cousin", "Welsh"),
])
def test_a_language_named_without_into_is_the_translations_target(planner, request_text, language):
    """Without a language the translation would be made into English, whatever the user asked for."""
    check = planner.plan(request_text)
    assert tasks_of(check) == ["translation"]
    assert check.plan.tasks[0].args["target_language"] == language


@pytest.mark.parametrize("request_text, files", [
    ("what does this Spanish sign say in plain words", ["sign.jpg"]),  # the sign is in Spanish
    ("I don't read Japanese, what does this mean: 'お元気ですか'", []),  # the language the user cannot read
    ("polish this sentence and translate it: 'me and him goes to the shop'", []),  # the verb
])
def test_a_language_a_text_is_in_is_not_the_target(planner, tmp_path, request_text, files):
    check = planner.plan(request_text, attach(tmp_path, *files))
    translations = [t for t in check.plan.tasks if t.task == "translation"]
    assert translations and all(t.args.get("target_language") in (None, "English") for t in translations)


@pytest.mark.parametrize("request_text, prompt", [
    ("hey could you make me a picture of, um, a heron standing in fog", "a heron standing in fog"),
    ("sketch me a teapot shaped like a snail", "a teapot shaped like a snail"),
    ("please produce a moody oil painting of a harbour at night", "a moody oil painting of a harbour at night"),
    ("vid: paper boats drifting down a gutter after rain", "paper boats drifting down a gutter after rain"),
    ("draw an owl trying to paint a sunset", "an owl trying to paint a sunset"),  # the painting is in the picture
])
def test_a_picture_is_made_from_what_it_should_show_not_the_request_around_it(planner, request_text, prompt):
    """The generator gets the picture's subject; a style named ("oil painting") stays in it."""
    check = planner.plan(request_text)
    assert len(check.plan.tasks) == 1 and check.plan.tasks[0].task in ("text-to-image", "text-to-video")
    assert check.plan.tasks[0].args["text"].lower() == prompt


@pytest.mark.parametrize("request_text, prompt", [
    ("edge map of plan.png then a glass skyscraper at dusk", "a glass skyscraper at dusk"),
    ("take the pose in skater.jpg and turn it into a robot mid-jump", "a robot mid-jump"),
    ("pose from skater.jpg -> a penguin on a skateboard", "a penguin on a skateboard"),
])
def test_a_guided_picture_is_made_from_its_own_words_not_the_maps(planner, tmp_path, request_text, prompt):
    check = planner.plan(request_text, attach(tmp_path, *[w for w in ("plan.png", "skater.jpg") if w in request_text]))
    made = [t for t in check.plan.tasks if t.task.endswith("-text-to-image")]
    assert len(made) == 1 and made[0].args["text"].lower() == prompt


def test_a_question_about_a_document_is_put_without_fillers_place_or_the_next_step(planner, tmp_path):
    check = planner.plan("what's the, um, the check-in time on this booking screenshot, read it to me", attach(tmp_path, "booking.png"))
    assert tasks_of(check) == ["document-question-answering", "text-to-speech"]
    assert check.plan.tasks[0].args["text"] == "What's the check-in time"


@pytest.mark.parametrize("asked, put", [
    ("how much is the deposit on this form, just say the number", "How much is the deposit"),
    ("the booking reference", "What is the booking reference"),  # a thing named alone is asked for
    ("parcel_tracking.png - delivery date", "What is the delivery date"),
    ("who is in it", "Who is in it"),  # "in it" is what is asked about here
    ("what does it say", "What does it say"),  # "say" is the question's own verb
    ("describe it", "Describe it"),  # a command, not a thing named
    ("Is there a ladder in this photo?", "Is there a ladder?"),
])
def test_tidy_question(asked, put):
    assert tidy_question(asked) == put


def test_words_inside_a_quote_do_not_make_a_step_read_the_original(planner, tmp_path):
    """"another" in the quoted words is not the user asking for another reading of the photo."""
    check = planner.plan("make pic.jpg look like a watercolour, then describe it as 'another rainy day'", attach(tmp_path, "pic.jpg"))
    edit, caption = check.plan.tasks
    assert (edit.task, caption.task) == ("image-to-image", "image-to-text")
    assert caption.args["image"] == placeholder(edit.id)


def test_the_original_is_the_text_given_not_the_last_result(planner):
    """"pull the names out of the original" after a translation reads the quoted words; "how similar
    your line is to the original" compares the summary with them (it had only one text)."""
    quote = "Maria y Jorge visitaron Lisboa con su tía Elena"
    check = planner.plan(f"translate '{quote}' into English, then pull the names of people out of the original")
    assert tasks_of(check) == ["translation", "token-classification"]
    assert check.plan.tasks[1].args["text"] == quote
    quote = "The council voted to close the old library on Elm Street next spring."
    check = planner.plan(f"boil this down to one line: '{quote}' then tell me how similar your line is to the original")
    summary, compare = check.plan.tasks
    assert (summary.task, compare.task) == ("summarization", "sentence-similarity")
    assert (compare.args["text"], compare.args.get("text2")) == (placeholder(summary.id), quote)


@pytest.mark.parametrize("request_text, files", [
    ("paint a lighthouse in a storm, then work out the depth in it, and also write a caption for that same picture", []),
    ("get a depth map of lot.jpg and then tell me what's in the same photo", ["lot.jpg"]),
])
def test_the_same_picture_is_the_one_the_step_before_read_not_its_map(planner, tmp_path, request_text, files):
    check = planner.plan(request_text, attach(tmp_path, *files) if files else [])
    *_, depth, caption = check.plan.tasks
    assert (depth.task, caption.task) == ("depth-estimation", "image-to-text")
    assert caption.args["image"] == depth.args["image"]


def test_all_of_a_counted_set_of_files_is_read_one_by_one(planner, tmp_path):
    """"caption all 3 please": a number counts the files as "three" does, each one read."""
    files = attach(tmp_path, "dunes.jpg", "oasis.jpg", "camel.jpg")
    check = planner.plan("caption all 3 please", files)
    assert tasks_of(check) == ["image-to-text"] * 3
    assert sorted(t.args["image"] for t in check.plan.tasks) == sorted(str(f.path) for f in files)


def test_a_step_asked_of_each_file_reads_each_in_its_own_way(planner, tmp_path):
    """"a short summary of each" with a recording and a text file: the text as it is, the
    recording through its transcript; "all the names" in one recording asks once."""
    files = attach(tmp_path, "standup.mp3", "agenda.txt")
    check = planner.plan("give me a short summary of each, separately", files)
    assert sorted(tasks_of(check)) == ["automatic-speech-recognition", "summarization", "summarization"]
    asr = next(t for t in check.plan.tasks if t.task == "automatic-speech-recognition")
    read = sorted(t.args["text"] for t in check.plan.tasks if t.task == "summarization")
    assert read == sorted([placeholder(asr.id), str(files[1].path)])
    check = planner.plan("pull all the names out of the recording", attach(tmp_path, "standup.mp3", "desk.jpg"))
    assert tasks_of(check) == ["automatic-speech-recognition", "token-classification"]


@pytest.mark.parametrize("request_text, prompt", [
    # the steps are asked after the colon: the words there are commands, not a text to work on
    ("three jobs for you: paint a lighthouse in a storm, caption it, and read the caption aloud", "a lighthouse in a storm"),
    ("two things please: generate a picture of a koala asleep in a tree, then describe it", "a koala asleep in a tree"),
])
def test_commands_after_a_colon_are_the_request_not_its_material(planner, request_text, prompt):
    check = planner.plan(request_text)
    assert tasks_of(check)[:2] == ["text-to-image", "image-to-text"]
    assert check.plan.tasks[0].args["text"] == prompt


def test_a_text_pasted_after_a_colon_is_still_worked_on(planner):
    check = planner.plan("summarise this for me: the council met on tuesday and agreed to repair the bridge before winter")
    assert tasks_of(check) == ["summarization"]
    assert check.plan.tasks[0].args["text"] == "the council met on tuesday and agreed to repair the bridge before winter"


@pytest.mark.parametrize("request_text, file, middle", [
    ("read me the French version of this menu. you need to pull the text off the picture and then translate it",
     "menu.jpg", "translation"),
    ("play me the short version of my voice note; first transcribe it and then summarise it", "note.wav", "summarization"),
])
def test_speech_of_a_result_asked_for_later_waits_for_it(planner, tmp_path, request_text, file, middle):
    """The result speech reads is named first ("the French version") and made by a step asked
    after it: the speech waits for that step and reads what it makes."""
    check = planner.plan(request_text, attach(tmp_path, file))
    assert tasks_of(check)[1:] == [middle, "text-to-speech"]
    made, speech = check.plan.tasks[1:]
    assert speech.args["text"] == placeholder(made.id)
    if middle == "translation":  # into the language the version is named by
        assert made.args["target_language"] == "French"


def test_steps_listed_from_a_named_result_each_read_it(planner, tmp_path):
    """"From the transcript I need a summary, and a list of the people named": the sentence opens
    by naming what both work from, so the names are found in the transcript, not the summary."""
    check = planner.plan("Transcribe the standup. From the transcript I need a two-line summary, and a list of the people named.",
                         attach(tmp_path, "standup.mp3"))
    assert tasks_of(check) == ["automatic-speech-recognition", "summarization", "token-classification"]
    asr, summary, names = check.plan.tasks
    assert summary.args["text"] == names.args["text"] == placeholder(asr.id)


@pytest.mark.parametrize("request_text", [
    "caption beach.jpg, depth map of garden.jpg",  # two steps listed at a comma, each with its file
    "caption beach.jpg and depth map of garden.jpg",  # two steps in one clause
])
def test_each_step_of_a_clause_reads_the_file_named_with_it(planner, tmp_path, request_text):
    """Before, both steps ran on both photos (or one step on both): the files a clause names are
    divided among its steps, each getting those named from its words to the next step's."""
    check = planner.plan(request_text, attach(tmp_path, "beach.jpg", "garden.jpg"))
    assert [(t.task, t.args["image"].rsplit("/", 1)[-1]) for t in check.plan.tasks] == [
        ("image-to-text", "beach.jpg"), ("depth-estimation", "garden.jpg")]
    check = planner.plan("compare beach.jpg, garden.jpg", attach(tmp_path, "beach.jpg", "garden.jpg"))
    assert [t.task for t in check.plan.tasks][-1] == "sentence-similarity"  # a list of files is one step's


@pytest.mark.parametrize("request_text", ["depth + seg", "depth + caption", "segmentation + depth map"])
def test_each_step_of_a_terse_list_reads_the_picture_given(planner, tmp_path, request_text):
    """A list of short steps on a photo: each maps or reads the photo, not the map made before it
    (the caption of a depth map describes a grey blur); words that point at the map still do."""
    files = attach(tmp_path, "garden.jpg")
    check = planner.plan(request_text, files)
    assert len(check.plan.tasks) == 2
    assert [t.args["image"] for t in check.plan.tasks] == [str(files[0].path)] * 2
    first, caption = planner.plan("depth + caption the map", files).plan.tasks
    assert caption.args["image"] == placeholder(first.id)


def test_a_question_after_a_quoted_passage_is_the_question_asked(planner):
    """The passage's closing quote mark began the question ('..." what is ...?') and hid it: the
    request's first words were asked instead."""
    check = planner.plan('answer from this text: "Tokyo is the capital of Japan." what is the capital of japan?', [])
    (qa,) = check.plan.tasks
    assert qa.args == {"context": "Tokyo is the capital of Japan.", "text": "What is the capital of japan?"}


def test_which_of_several_files_asks_of_each(planner, tmp_path):
    """"which of these recordings is a dog barking": every recording is judged, not the first alone."""
    files = attach(tmp_path, "yard.wav", "porch.wav")
    check = planner.plan("which of these recordings is a dog barking", files)
    assert [(t.task, t.args["audio"]) for t in check.plan.tasks] == [
        ("audio-classification", str(files[0].path)), ("audio-classification", str(files[1].path))]


def test_separately_opening_a_command_sets_it_apart_and_makes_it_once(tmp_path):
    # "separately" before the verb: one picture from the story, apart from the caption (before:
    # a second picture was drawn from the caption, as if each text were asked for)
    files = attach(tmp_path, "story.txt", "cat.jpg")
    check = OfflinePlanner().plan("caption cat.jpg, and separately draw a picture of what story.txt describes", files)
    assert tasks_of(check) == ["image-to-text", "text-to-image"]
    assert check.plan.tasks[1].args["text"] == str(files[0].path)


def test_separately_after_the_things_still_asks_once_each():
    assert asks_each(EACH_FILE_RE, "summarise the memo and the minutes file separately")
    assert asks_each(EACH_RE, "transcribe both recordings separately")
    assert not asks_each(EACH_FILE_RE, "and separately draw a castle")
    assert not asks_each(EACH_RE, "separately, translate the caption")


@pytest.mark.parametrize("request_text, file, task", [
    ("sketch a hedgehog in a teacup, and then describe this photo for me", "garden.jpg", "image-to-text"),
    ("Make an image of a lighthouse at dusk. Also, what breed is the dog in this photo?", "puppy.jpg",
     "image-classification"),
    ("paint me a field of sunflowers, then caption the photo I sent", "market.jpg", "image-to-text"),
])
def test_a_photo_pointed_at_after_a_picture_made_from_words_is_the_photo_given(planner, tmp_path, request_text,
                                                                                file, task):
    """"this photo" with a photo given is that photo, not the picture just drawn from words."""
    check = planner.plan(request_text, attach(tmp_path, file))
    assert tasks_of(check) == ["text-to-image", task]
    assert check.plan.tasks[1].args["image"] == str(tmp_path / file)


@pytest.mark.parametrize("request_text", [
    "generate an image of a red tram in the fog and then describe the image",  # TaskBench's chains, how people say it
    "draw a red tram in the fog, then caption this drawing",  # a drawing, a picture: made as often as given
    "generate a picture of a red tram in the fog, then describe this new image",
])
def test_the_picture_named_without_pointing_at_a_given_photo_is_still_the_one_made(planner, tmp_path, request_text):
    check = planner.plan(request_text, attach(tmp_path, "bus.jpg"))
    assert tasks_of(check) == ["text-to-image", "image-to-text"]
    assert check.plan.tasks[1].args["image"] == placeholder(check.plan.tasks[0].id)


@pytest.mark.parametrize("request_text, prompt", [
    ("caption this photo and then draw a hedgehog in a teacup", "a hedgehog in a teacup"),
    ("describe this picture, and sketch me an owl on a branch", "an owl on a branch"),
    ("caption this photo and then draw a heron that is fishing", "a heron that is fishing"),  # a relative "that"
])
def test_a_drawing_with_its_own_subject_beside_a_photo_is_drawn_from_its_own_words(planner, tmp_path, request_text,
                                                                                   prompt):
    """"describe this photo and draw a koala": the drawing is asked for though a photo was given (the
    model leans to steps on the photo), and made from its own words, not the caption."""
    check = planner.plan(request_text, attach(tmp_path, "garden.jpg"))
    assert tasks_of(check) == ["image-to-text", "text-to-image"]
    assert check.plan.tasks[1].args["text"] == prompt


def test_the_same_sentence_asked_again_reads_the_words_given_and_a_language_names_its_result(planner):
    """ "Then translate the same sentence into Italian": the quoted words, not the German result;
    "read the German one": the German translation."""
    check = planner.plan('First translate "Is breakfast included?" into German. Then translate the same sentence into Italian. '
                         'After that, read the German one out loud.')
    assert tasks_of(check) == ["translation", "translation", "text-to-speech"]
    german, italian, speech = check.plan.tasks
    assert german.args["text"] == italian.args["text"] == "Is breakfast included?"
    assert (german.args["target_language"], italian.args["target_language"]) == ("German", "Italian")
    assert speech.args["text"] == placeholder(german.id)

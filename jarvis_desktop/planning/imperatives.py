"""A request worded as a command: "draw a busy market", "email to my landlord about the heater".

When the step classifier is unsure of every step (words it barely knows, a short request), a
request that still gives a command runs its likeliest step rather than nothing; a remark, a
question or talk ("tell me a joke") is left to the chat.
"""

from __future__ import annotations

import numpy as np

from .extract import STEP_ADVERBS
from .step_labels import media_input, media_output

#: Words that open a command without changing it
_OPENERS = {"please", "pls", "ok", "okay", "so", "now", "just"}
#: Commands that ask for talk, not a step ("tell me a joke", "explain it to me", "let's chat")
_TALKING = {"tell", "talk", "chat", "explain", "remind", "let", "help", "thank", "keep", "hang", "wait", "hold"}
#: Pieces of writing a request can ask for, made new ("tell me a joke out loud", "haiku on fog")
WRITINGS = {"poem", "haiku", "sonnet", "limerick", "rhyme", "lullaby", "song", "story", "tale", "joke", "riddle",
            "fact", "quote", "toast", "compliment", "essay", "letter"}
#: Things to make, named at the head of a request without a verb ("picture of the water cycle"),
#: by the kind of thing each is
_PRODUCTS = {"video": "video", "clip": "video", "animation": "video", "audio": "audio", "speech": None, "email": "text",
             **{w: "text" for w in WRITINGS}}


def gives_a_command(tokens: list) -> bool:
    """The request opens with a verb in its base form that heads the sentence ("draw a busy
    market", "animate a robot dancing"), and the verb does not ask for talk."""
    words = _opening_words(tokens, ("PUNCT", "INTJ"))
    return bool(words) and _commands(words[0], ("ROOT",))


def clause_commands(tokens: list) -> bool:
    """A clause that gives a command of its own after whatever opens it ("oh and read it out",
    "anyway, paint me a harbour") or says what the user wants ("i'd like a map of it"), not a
    question about one ("can you paint?")."""
    words = _opening_words(tokens, ("PUNCT", "INTJ", "CCONJ", "ADV"))
    if words and words[0].lower in ("i", "we"):  # "i want a picture of a cat", "we'd like it in French"
        rest = [t for t in words[1:3] if t.lower not in ("'d", "would", "really")]
        return bool(rest) and rest[0].lemma in ("want", "need", "like") and rest[0].tag in ("VB", "VBP")
    return bool(words) and _commands(words[0], ("ROOT", "conj"))


def _opening_words(tokens: list, skipped_pos: tuple[str, ...]) -> list:
    """The words of a request or clause past its openers ("please", "ok so") and ``skipped_pos``."""
    return [t for t in tokens if t.pos not in skipped_pos and t.lower not in _OPENERS]


def _commands(word, deps: tuple[str, ...]) -> bool:
    """``word`` is a verb in its base form heading its sentence (``deps``) that asks for no talk."""
    return word.pos == "VERB" and word.tag == "VB" and word.dep in deps and word.lemma not in _TALKING


#: Commands whose own verb names the kind of thing they make ("draw a forest", "animate a robot")
MEDIUM_VERBS = {"draw": "image", "paint": "image", "sketch": "image", "illustrate": "image", "animate": "video"}
#: Objects with which those verbs make nothing ("draw a conclusion", "paint a picture of how it went" stays)
_IDIOMS = {"conclusion", "attention", "comparison", "parallel", "inspiration", "breath", "line", "lesson", "insight", "meaning",
           "strength", "blank"}


def commanded_medium(tokens: list) -> str | None:
    """The kind of thing a command's verb makes ("draw a forest where the trees were cut down": an
    image, however unsure the step model is of the words after it), None for other requests."""
    if not gives_a_command(tokens):
        return None
    words = [t for t in tokens if t.pos not in ("PUNCT", "INTJ") and t.lower not in _OPENERS]
    return _medium_named(words[0], words[1:])


def _medium_named(verb, rest: list) -> str | None:
    """The kind of thing ``verb`` makes when it names one ("draw", "animate"), unless the words
    after it make an idiom of it ("draw a conclusion from this", "draw attention to it")."""
    return None if any(t.lemma in _IDIOMS for t in rest[:3]) else MEDIUM_VERBS.get(verb.lemma)


#: Words that put a drawing on or around something there already ("draw a circle around the dog",
#: "a box around each car", "a hat on him"), not where what it shows is ("an owl on a branch", "a
#: fox in the snow"); "on the branch" may be either, and is left to the step model
_PLACING = {"on", "onto", "over", "around", "round", "into", "to"}
_PLACED_ON = {"each", "every", "all", "both", "top"}  # ... and the words that say a thing is there already
_POINTERS = {"it", "this", "that", "them", "these", "those", "him", "her"}


def drawn_in_clause(tokens: list) -> str | None:
    """The kind of thing a clause's own command makes new, when its verb names it ("..., and draw a
    koala": an image even with a photo given); None when the clause draws on or around something
    there already ("and draw a hat on him") or asks for no such thing."""
    words = [t for t in tokens if t.pos not in ("PUNCT", "INTJ") and t.lower not in _OPENERS]
    while words and (words[0].pos in ("CCONJ", "ADV") or words[0].lower in STEP_ADVERBS | {"first", "firstly"}
                     or words[0].tag == "MD" and len(words) > 1 and words[1].lower in ("you", "u")):
        words = words[2:] if words[0].tag == "MD" else words[1:]  # "..., and then draw a fox", "first paint ...", "can you also paint ..."
    if not words or words[0].pos != "VERB" or words[0].tag not in ("VB", "VBP"):
        return None
    rest = words[2:] if len(words) > 1 and words[1].lower in ("me", "us") else words[1:]
    if not rest or rest[0].lower in GIVEN_DETERMINERS or rest[0].pos not in ("DET", "NUM", "ADJ", "NOUN", "PROPN"):
        return None  # "draw the result", "draw me what you described": not a thing of its own
    if any(t.lower in _POINTERS and t.tag not in ("WDT", "PRP$") or t.lower in _PLACING and (
            n + 1 < len(rest) and rest[n + 1].lower in GIVEN_DETERMINERS | _PLACED_ON) for n, t in enumerate(rest)):
        return None  # (not a relative "that" nor a possessive "her": "a cat that is sleeping", "a girl with her kite")
    return _medium_named(words[0], rest)


def thing_to_make(tokens: list, media_words: dict[str, set[str]]) -> str | None:
    """The request opens with the name of a thing to make, then what it shows ("picture of the water
    cycle", "video of waves at sunset", "short poem about cats", "sonnet abt autumn leaves"): a
    command without its verb. Terse words parse badly ("sonnet abt autumn leaves" reads as autumn
    that leaves), so the words are taken in order; a statement about a thing ("the video of the
    party won't play") has an auxiliary and is not a command. Returns the kind of thing named
    (text, image, video, audio), "" when a thing to make is named whose kind is unsure ("speech"),
    None when the request is no such command."""
    if any(t.pos == "AUX" for t in tokens):
        return None
    words = [t for t in tokens if t.pos not in ("PUNCT", "INTJ", "DET") and t.lower not in _OPENERS]
    while words and words[0].pos in ("ADJ", "NUM") and words[0].lower not in _ABOUT:
        words = words[1:]  # "short", "funny", "two"
    if len(words) < 3 or words[1].lower not in _ABOUT:
        return None
    # the word as written names a thing whatever the parser made of it ("riddle about a teapot"
    # reads as a verb, "drawing of a snail" as one's participle); its lemma only as a noun
    for word in (words[0].lower,) + ((words[0].lemma,) if words[0].pos in ("NOUN", "PROPN") else ()):
        if word in _PRODUCTS:
            return _PRODUCTS[word] or ""
        for kind in ("image", "text"):
            if word in media_words.get(kind, set()):
                return kind
    return None


def maker_of(kind: str | None, j: int, needs: np.ndarray, labels: list[str]) -> int:
    """The likeliest step that makes the ``kind`` of thing a request names ("haiku on morning fog":
    a writing, whichever way the model leans between steps it barely knows); ``j`` when it makes
    that kind already or no kind is named."""
    if not kind or media_output(labels[j]) == kind:
        return j
    same = [k for k, label in enumerate(labels) if media_output(label) == kind and not media_input(label)]
    return max(same, key=lambda k: needs[k]) if same else j


#: The word after a thing to make that says what it is of ("poem about cats", "haiku on fog")
_ABOUT = {"of", "about", "abt", "on", "showing", "with", "for", "to"}


#: Verbs that make a new thing; the thing they make names the step ("generate images from the labels")
MAKING_VERBS = {"generate", "create", "make", "produce", "render", "draw", "paint", "compose", "design", "craft"}
#: New media by the kind a step makes ("a newly generated image", "create a short clip")
NEW_MEDIA = {
    "image": {"image", "picture", "illustration", "drawing", "painting", "artwork", "poster", "graphic", "visual", "photo"},
    "video": {"video", "clip", "animation", "film", "movie"},
    "audio": {"speech", "audio", "narration", "voiceover"},
}
#: Words that say a thing is already there, not made ("make the picture brighter")
GIVEN_DETERMINERS = {"the", "this", "that", "these", "those", "my", "your", "its", "their", "our", "his", "her"}


def media_made(tokens: list) -> set[str]:
    """The kinds of media a clause says are to be made: a making verb then a new thing ("generate
    images from the labels", "create a short video"), or a thing called made ("in a newly generated
    image"). A definite or possessive word before the thing says it exists already."""
    kinds: set[str] = set()
    for n, t in enumerate(tokens):
        if t.lemma not in MAKING_VERBS:
            continue
        participle = t.tag == "VBN" and t.dep == "amod"
        for u in tokens[n + 1 : n + 5]:
            kind = next((k for k, words in NEW_MEDIA.items() if u.lemma in words), None)
            if kind and u.pos == "NOUN":
                kinds.add(kind)
                break
            if u.lower in GIVEN_DETERMINERS or u.pos not in ("DET", "ADJ", "ADV", "NUM") or participle and u.pos != "ADJ":
                break
    return kinds


#: Pieces of writing made new for the user ("a couple of taglines", "3 tweets announcing ..."); not
#: jokes, stories and songs, which people ask of an assistant as talk ("give me a joke")
NEW_WRITINGS = (WRITINGS - {"fact", "quote", "compliment", "letter", "joke", "riddle", "story", "tale", "song"}) | {
    "tagline", "slogan", "tweet", "headline", "motto", "blurb", "bio", "verse"}
#: Verbs that ask for a piece of writing to be made and handed over ("give me two slogans")
ASKING_FOR = {"give", "write", "draft", "compose", "need", "want", "suggest", "brainstorm", "create", "make", "come", "think"}
#: Words that say a thing is new, one of several or counted ("a", "some", "a couple of", "3")
_NEW_ONES = {"a", "an", "some", "few", "couple", "several", "another", "more"}
#: Counts said with "of" ("a couple of", "a few of", "a bunch of")
_SOME_OF = {"couple", "few", "bunch", "handful", "pair", "lot"}


def writing_asked(tokens: list) -> bool:
    """The request asks for a new piece of writing by naming it, when the step model knows too
    little of the words to say so ("could you give me a couple of taglines for my brand", "3
    tweets announcing our dark mode"): a writing named as new or counted, asked for by a verb in
    its base form ("give", "come up with", "I need") or heading a request with no verb of its
    own. Not a writing talked about ("I posted 3 tweets today", "some slogans are too long"), nor
    one that is there already ("this poem")."""
    first = next((k for k, u in enumerate(tokens) if u.pos not in ("PUNCT", "INTJ") and u.lower not in _OPENERS), None)
    for n, t in enumerate(tokens):
        if t.pos != "NOUN" or t.lemma not in NEW_WRITINGS:
            continue
        before = tokens[max(0, n - 4):n]
        if any(u.lower in GIVEN_DETERMINERS for u in before[-2:]) or not any(u.lower in _NEW_ONES or u.pos == "NUM" for u in before):
            continue
        verbs = [u for u in tokens[:n] if u.pos in ("VERB", "AUX")]
        if verbs:
            if verbs[-1].lemma in ASKING_FOR and verbs[-1].tag in ("VB", "VBP", "VBG"):
                return True
            continue
        heads = first is not None and all(u.pos in ("DET", "NUM", "ADJ", "NOUN") or u.lower == "of" and k and tokens[first + k - 1].lower in _SOME_OF
                                          for k, u in enumerate(tokens[first:n]))  # "a couple of taglines for ..."
        if heads and not any(u.tag in ("VBZ", "VBP", "VBD", "MD") for u in tokens[n + 1:]):
            return True
    return False

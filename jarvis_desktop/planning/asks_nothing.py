"""What in a request asks for no step: files left for later, a question about what the
assistant can do, a clause that only gives the user's reason ("I can't read it"), a request about
the assistant's own voice ("speak slower": a setting, see voice/commands.py), a clause that only tells
how a file came about or what it holds ("I recorded it last night", "in this clip is my dad singing"),
thanks for what was done ("thanks, the transcript looked great") or an opinion of it ("that pic u
made was fire"), an apology ("sorry for my bad english"), an errand beside a step ("... then order
more from the supplier"), the time or the weather asked beside a step, a question to the
assistant about itself ("what's your name?").

The step classifier reads verbs ("read", "translate", "make videos") as steps wherever they stand;
these closed sets of wordings and sentence shapes say when such a verb is not asked of the assistant now.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from .detect import QUESTION_START_RE
from .result_refs import RESULT_NAMES, is_language
from .step_words import QUESTION_TAGS

#: A clause that only says what the user cannot do ("I can't read the language", "i dont speak
#: french", "I not understand this table"): a reason for the request, whose verbs (read, speak)
#: would otherwise ask for speech.
_INABILITY_RE = re.compile(
    r"\s*(?:(?:and|but|because|cause|cuz|since|as|coz)\s+)?(?:i|we)\s+(?:really\s+|just\s+|still\s+)?"
    r"(?:can'?t|cannot|can not|couldn'?t|could not|don'?t|dont|do not|not)\s+(?:really\s+)?"
    r"(?:read|speak|understand|see|hear|make out|follow|tell)\b[^,;:!?]*[.!]?\s*$", re.I)


#: Words that put a whole request on hold: the files are for later, or what was asked is taken back.
_HOLD_RE = re.compile(
    r"\b(?:nothing (?:to do|yet|for now)\b|(?:don'?t|do not|not) do (?:anything|nothing)\b|no need to do anything"
    r"|(?:don'?t|do not) need anything\b"
    r"|never ?mind(?=\s*(?:[,.!;?]|$|forget|cancel|scrap|that\b|it\b|i\b|i'))|(?:keeping|leaving|parking|storing|saving) (?:it|them|this|these|those|(?:the|my) \w+) here"
    r"|(?:come|get) back to (?:it|them|this|that|these) later|i(?:'ll| will) (?:say|tell you|let you know) when)",
    re.I)


def on_hold(text: str, tokens: list) -> bool:
    """The request ends by putting everything on hold ("here's the contract, nothing to do yet",
    "wrong file, don't do anything with it", "never mind, I'll come back to it later"): no step is
    run. Not when a new request follows ("never mind, just tell me what it is"), also one with no
    verb that names what to make ("never mind, a caption for this shot please")."""
    last = None
    for last in _HOLD_RE.finditer(text):
        pass
    if last is None:
        return False
    after = [t for t in tokens if t.start >= last.end()]
    verbs = [t for t in after if t.pos in ("VERB", "AUX")]
    if any(t.lemma not in ("be", "have") for t in verbs):
        return False
    return bool(verbs) or not any(t.lemma in RESULT_NAMES and t.pos == "NOUN" for t in after)


#: Words that thank
_THANKS = {"thank", "thanks", "thx", "cheers", "ty"}


def _outside(tokens: list, quotes: list) -> list:
    """The tokens the user says, not those quoted."""
    return [t for t in tokens if not any(q.start <= t.start < q.end for q in quotes)]


def only_thanks(tokens: list, quotes: list) -> bool:
    """The request thanks for, or praises, what was done and asks nothing more ("thanks, the
    transcript looked great", "lol that caption was hilarious, thank you"): no question mark, no
    "please", no command or "could you" (a verb in its base or present form, or a modal) besides the thanking
    itself. Quoted words are not the user's ("how do you say 'thanks for dinner' in Japanese")."""
    own = _outside(tokens, quotes)
    if not any(t.lower in _THANKS or t.lemma == "thank" for t in own) or any(t.text == "?" or t.lower == "please" for t in own):
        return False
    if any(t.pos in ("VERB", "AUX") and t.tag in ("VB", "VBP", "MD") and t.lemma != "thank" for t in own):
        return False
    # said of what was done ("looked great", "was spot on"), or the thanks alone ("thank you so much!"):
    # not "thanks, caption the second one too", whose command the tagger may take for a noun
    return any(t.tag == "VBD" for t in own) or len([t for t in own if t.pos != "PUNCT"]) <= 4


#: What the assistant made that a user may judge afterwards ("that last pic u made was fire")
_MADE_THINGS = RESULT_NAMES | {"pic", "picture", "image", "drawing", "painting", "video", "clip", "poem", "story", "voice", "reading"}
#: Words that point at one already there
_THAT_ONE = {"that", "the", "this", "your", "ur", "those", "these"}
#: Chat abbreviations the tagger reads as verbs or names ("lol", "ngl"), which say nothing
_CHAT_WORDS = {"lol", "ngl", "tbh", "omg", "haha", "lmao", "btw", "idk", "imo", "ahah"}


def only_judges_what_was_made(tokens: list, quotes: list) -> bool:
    """The request only says what the user thought of something made before ("that last pic u made
    was lowkey fire", "the summary was perfect, my boss loved it"): a made thing is what a verb
    says something of, and nothing is asked - no question mark, no "please", no command, no
    present-tense verb or modal (not "the caption is too long, make it shorter")."""
    own = [t for t in _outside(tokens, quotes) if t.lower not in _CHAT_WORDS]
    if any(t.text == "?" or t.lower in ("please", "pls") for t in own):
        return False
    if any(t.pos in ("VERB", "AUX") and t.tag in ("VB", "VBP", "VBZ", "MD") and t.lemma != "thank" for t in own):
        return False
    if any(t.lemma in ("want", "need", "wish", "hope", "like") and t.pos == "VERB" for t in own):
        return False  # "I wanted a picture of the poem I wrote": a wish
    # the thing made is one already there ("that pic", "the summary"), not one asked for ("a poem about a dog that ran away")
    made = [k for k, t in enumerate(own) if t.lemma in _MADE_THINGS and t.dep != "ROOT" and any(
        u.lower in _THAT_ONE for u in own[max(0, k - 2):k])]
    past = [k for k, t in enumerate(own) if t.tag == "VBD" and t.dep != "aux"]
    if past and any(u.pos == "PUNCT" for u in own[past[-1]:]) and any(
            u.lower in ("a", "an") for u in own[next(n for n in range(past[-1], len(own)) if own[n].pos == "PUNCT"):]):
        return False  # "the picture of the fox was cute, a wolf next": another one asked
    # each past verb has its subject since the last pause or verb: "the translation was perfect, read it to my mum" commands
    return bool(made) and bool(past) and all(_has_subject(own, k) for k in past)


def _has_subject(toks: list, k: int) -> bool:
    """A subject stands between the verb at ``k`` and the pause or verb before it."""
    for u in reversed(toks[:k]):
        if u.dep in ("nsubj", "nsubjpass"):
            return True
        if u.pos == "PUNCT" or u.pos in ("VERB", "AUX") and u.dep not in ("aux", "auxpass", "relcl", "acl"):
            return False
    return False


#: Words that open an apology
_SORRY = {"sorry", "apologies", "apology", "excuse", "pardon", "forgive"}


def only_apologizes(toks) -> bool:
    """The clause only says sorry ("sorry for my bad english", "apologies for the rush", "sorry
    about the quality"): it asks nothing, though the words after "sorry" may read like a step (a
    language, a recording's quality). Not "sorry, can you translate it" nor "sorry, what is it?"."""
    words = [t for t in toks if (t.pos not in ("PUNCT", "INTJ") or t.lower in _SORRY) and t.lower not in _CHAT_WORDS]
    if not words or words[0].lower not in _SORRY or len(words) > 1 and words[1].lower not in ("for", "about", "my", "if", "again"):
        return False  # "sorry, in French": a correction (self_repairs.py)
    return not any(t.text == "?" or t.tag in QUESTION_TAGS or t.tag in ("VB", "VBP", "VBZ", "MD") and t.lemma not in _SORRY
                   for t in toks[1:])


def states_inability(clause: str) -> bool:
    """The clause only says what the user cannot do ("I can't read the language")."""
    return bool(_INABILITY_RE.match(clause))


#: Things a user may ask whether the assistant can do, in general ("can you make videos too?").
_GENERIC = (r"(?:stuff|things|anything|something|videos|pictures|pics|images|photos|music|songs|audio|texts?|documents"
            r"|languages|speech|voices|transcripts|translations|summaries|captions|drawings|art)")
_ABILITY_RES = [
    re.compile(r"\bwhat (?:else |kinds? of (?:things|stuff) |sorts? of (?:things|stuff) )?(?:can|could) (?:you|u) do\b", re.I),
    re.compile(r"\b(?:which|what) languages (?:can|do|could) (?:you|u)\b", re.I),
    re.compile(r"(?:^|[.?!]\s+)(?:which|what) languages? (?:you|u) (?:are |can )?\w+\s*\??\s*$", re.I),  # "which languages you are speaking?"
    re.compile(r"^(?:(?:so|and|hey|hi|um|uh|ok|okay|also|oh|wait),? )*(?:can|could|do|will) (?:you|u) "
               r"(?:also |even |actually |really )?\w+(?: " + _GENERIC + r")?(?: for me)?(?: too| as well| also)?"
               r"\s*\??\s*(?:just asking\b.*)?$", re.I),
    # "..., just curious", "just asking for later", "just wondering, I might send one later"; not "just curious, draw me a cat"
    re.compile(r"\bjust (?:asking|wondering|curious)\b(?=\s*(?:$|[.!?,]+\s*(?:$|i\b(?!'d|\s+(?:want|need|would))|i'(?!d)|nothing|not\b|no\b)"
               r"|(?:[.!?,]\s*)?for\b))", re.I),
    # "can you do that for pictures too?": the same again, asked of a kind of thing, names no task
    re.compile(r"^(?:(?:so|and|hey|ok|okay|also|oh|wait),? )*(?:can|could|will) (?:you|u) (?:also |even )?do "
               r"(?:that|this|it|the same)(?: (?:thing|trick))?(?: (?:for|with|on|to) " + _GENERIC + r")?(?: too| as well| also)?\s*\??$", re.I),
]


#: "do you speak French?", "you understand portuguese also?": whether it knows a language
_KNOWS_LANGUAGE_RE = re.compile(r"^(?:(?:so|and|hey|hi|ok|okay|also|oh),? )*(?:(?:do|can|could) )?(?:you|u) (?:also |even )?"
                                r"(?:speak|understand|know|read) (\w+)(?: too| also| as well)?\s*\??\s*$", re.I)


def asks_about_abilities(text: str) -> bool:
    """A question about what the assistant can do ("what can you do with pictures?", "which
    languages do u translate?", "can you summarise stuff for me? just asking"), not a request to do
    it: the answer is what it can do. The caller checks that no file came with it."""
    text = text.strip()
    if (m := _KNOWS_LANGUAGE_RE.search(text)) and is_language(m.group(1)):
        return True
    return any(rx.search(text) for rx in _ABILITY_RES)


def without_ability_questions(found: list[tuple[int, int, str]], spans: list, quotes: list,
                              commands: Callable[[Any], bool]) -> list[tuple[int, int, str]]:
    """The steps of a request that asks what the assistant can do, less those of every clause but
    one that gives a command of its own: "what can you do? draw me a cat" still draws the cat, "are
    you able to make videos? just asking" makes none. Where words are quoted, only the clauses that
    ask are left out ("what else can you do? oh and read 'hello there' out loud")."""
    asking = {i for i, s in enumerate(spans) if asks_about_abilities(s.text) and not commands(s) and not _holds_quote(s, quotes)}
    if quotes:  # "what else can you do? oh and read 'hello there' out loud"; not "... also what does 'gracias' mean"
        kept = [f for f in found if f[0] not in asking]
        return kept if kept else found
    return [f for f in found if f[0] not in asking and commands(spans[f[0]])]


def _holds_quote(span, quotes: list) -> bool:
    """Quoted words begin inside ``span``."""
    return any(span.start <= q.start < span.end for q in quotes)


def says_what_it_holds(toks) -> bool:
    """A statement whose main verb is "be" or "have", said of a thing ("in this recording is me and
    my sister singing", "the photo has a lot of glare"): it says what a file holds, and asks
    nothing. Not a question (a question mark, a question word, or "is"/"does" first), and not said
    of the user ("I'm curious whether ...", "I have a photo that ...": what the user wants)."""
    verb = next((t for t in toks if t.pos in ("VERB", "AUX") and t.dep not in ("aux", "auxpass")), None)
    if verb is None or verb.lemma not in ("be", "have"):
        return False
    if any(t.dep == "nsubj" and t.lower in ("i", "we", "you") for t in toks):
        return False
    first = next((t for t in toks if t.pos not in ("PUNCT", "CCONJ")), toks[0])
    return not (any(t.text == "?" or t.tag in QUESTION_TAGS for t in toks) or first.pos == "AUX")


def tells_what_happened(toks) -> bool:
    """The clause's main verb is in the past with "I"/"we" as its subject ("I recorded", "we
    took", "I've recorded"): an account, not a request. The clause's first verb counts as its main
    one also when the parser hung it on a later command ("so I recorded it last night and ...,
    could you clean that up")."""
    for k, t in enumerate(toks):
        if t.pos == "VERB" and t.dep in ("ROOT", "ccomp"):
            if t.lemma in ("get", "have"):
                return False  # "I've got a photo": what the user has now
            subject = [u.lower for u in toks[max(0, k - 3):k] if u.dep == "nsubj"]
            past = t.tag == "VBD" or t.tag == "VBN" and any(u.lemma == "have" for u in toks[max(0, k - 2):k])
            return past and bool(subject) and subject[-1] in ("i", "we")
    return False


#: What is done to files as files, by the desktop and not by a model: packing, opening in an
#: application, moving, printing, mailing them
_FILE_CHORES = {"zip", "unzip", "compress", "archive", "rename", "delete", "move", "print", "upload", "open", "email", "backup"}
#: ... and sending them on or keeping them, which may also ask for a new form ("send it in French")
_SENDING = {"forward", "send", "save", "share"}
_CHORES = _FILE_CHORES | _SENDING
#: ... or making them into a container ("put these into a zip", "merge them into one pdf")
_CONTAINERS = {"zip", "folder", "archive", "pdf"}
#: Words that point at the files as a whole ("these", "both of them", "the files")
_THE_FILES = {"these", "those", "them", "both", "all", "everything", "files", "attachments"}
#: ... or at the one file ("forward this to my landlord", "save it in my documents folder"): a
#: chore then only when nothing after it says how the file is to be changed (``_sent_as_is``)
_THE_FILE = {"this", "that", "it", "one"}
#: Words of a destination or a time that may follow a file sent or kept as it is
_WHERE_OR_WHEN = {"to", "with", "for", "on", "in", "into", "onto", "at", "via", "over", "of", "before", "after", "by", "tonight",
                  "today", "tomorrow", "now", "later", "asap", "please", "pls", "thanks", "again", "too", "also", "right", "away"}
#: Nouns that say what form a file is to take ("as text", "in higher resolution", "anime style")
_FORMS = {"text", "word", "writing", "written", "audio", "voice", "speech", "sound", "style", "color", "colour", "resolution",
          "quality", "version", "form", "format", "note", "detail", "background", "noise", "grammar", "bullet", "point", "summary",
          "subtitle", "lyric", "caption", "title", "correction"}
#: A question about the files themselves, not what they hold ("how big are these files", "the file sizes")
_FILE_FACTS_RE = re.compile(r"\bhow (?:big|large|heavy) (?:is|are) (?:the|these|those|this|my|both|all)?\s*(?:\w+\s+)?(?:files?|attachments?)\b"
                            r"|\bfile ?sizes?\b|\bsizes? of (?:the|these|those|my) (?:\w+\s+)?files\b", re.I)


def only_file_chores(text: str, toks) -> bool:
    """Every command of the request is a chore done to its files as files ("put these three into a
    zip", "open both of these in excel", "how big are these files?"): no model has a step for it,
    the chat says so. The chore is said of the files as a whole ("these", "both", "the files"),
    not of what they hold ("copy the text from both screenshots"), and nothing a model makes is
    asked beside it, by a verb, a result's name or a question ("... and caption each one", the
    tagger's noun; "... with a short summary of each"; "... and what is in them")."""
    if any(t.lemma in RESULT_NAMES or t.tag in ("WP", "WDT") for t in toks):
        return False
    if _FILE_FACTS_RE.search(text):
        return True
    verbs = [k for k, t in enumerate(toks) if (t.pos == "VERB" and t.tag in ("VB", "VBP") and t.dep not in ("aux", "xcomp")
                                               or k == 0 and t.lower in _CHORES)  # "forward this one", tagged an adverb
             and not any(u.dep == "nsubj" and u.lower not in ("you", "u", "i") for u in toks[max(0, k - 3):k])]  # "she'll love it"
    chores = [k for k in verbs if _is_chore(toks[k]) and (toks[k].lemma not in _SENDING and any(u.lower in _THE_FILES for u in toks[k + 1:k + 4])
                                                           or _sent_as_is(toks, k))
              or toks[k].lemma in ("put", "merge", "pack", "turn") and any(u.lower in _CONTAINERS for u in toks[k:]) and any(
                  u.lower in _THE_FILES for u in toks[k + 1:k + 4])]
    return bool(chores) and len(chores) == len(verbs)


def _is_chore(t) -> bool:
    return t.lemma in _CHORES or t.lower in _CHORES


def _whose_or_where(t) -> bool:
    """The word after "in" or "with" opens a place or a person ("in my documents folder", "in Slack",
    "in accounting", "with the team", "with Sam", "with everyone")."""
    return t.lower in ("my", "our", "your", "his", "her", "their", "the", "this", "that") or t.pos in ("PROPN", "PRON") or t.tag == "VBG"


def _names_a_place(toks, n: int) -> bool:
    """The word at ``n`` names a person, a place or a thing the file goes to ("the whole team", "in
    accounting"): a noun, a gerund used as one, or a describing word before a noun; not a form the
    file takes ("as text", "anime style") nor a comparison ("sharper")."""
    t = toks[n]
    if t.lemma in _FORMS or t.lower in _FORMS:
        return False
    return (t.pos in ("NOUN", "PROPN") or t.tag == "VBG" and t.dep in ("pobj", "compound")
            or t.pos == "ADJ" and t.tag == "JJ" and n + 1 < len(toks) and toks[n + 1].pos in ("NOUN", "PROPN"))


def _sent_as_is(toks, k: int) -> bool:
    """The chore at ``k`` is done to the files as they are: words pointing at them follow it
    ("these", "both of them", "this one") with at most a destination, a time or a name after
    ("forward this to my landlord tonight", "save it on my desktop as bio 101"), then only a remark
    about someone ("..., she'll love it").
    Not where a form, a change or another step is asked ("send it in French", "save it as text",
    "share it blurred", "open this and read it to me", "send it. is he angry?")."""
    p = next((n for n in range(k + 1, min(k + 4, len(toks))) if toks[n].lower in _THE_FILES | _THE_FILE), None)
    if p is None or any(t.text == "?" for t in toks[k:]):
        return False
    n = p + 1
    while n < len(toks) and not (toks[n].pos == "PUNCT" or toks[n].lower in ("and", "but", "then", "so")):
        t = toks[n]
        if t.lower in ("named", "called"):
            return True
        if t.lower == "as":  # a name (with a number or a capital), or a container: not a form ("as text")
            if not any(u.pos in ("NUM", "PROPN") or u.lower in _CONTAINERS for u in toks[n + 1:n + 4]):
                return False
        elif t.lower in ("in", "with") and n + 1 < len(toks) and not _whose_or_where(toks[n + 1]):
            return False  # "in grayscale", "in a formal way", "with a poem", "with subtitles": a form or an addition
        elif not (t.lower in _WHERE_OR_WHEN or t.pos in ("DET", "PRON", "NUM", "PART") or _names_a_place(toks, n) and not is_language(t.text)):
            return False
        n += 1
    rest = toks[n:]
    if rest and rest[0].lower in ("and", "but", "then", "so"):  # another chore may follow, not another step
        nxt = next((u for u in rest[1:] if u.lower not in ("then", "also", "please")), None)
        return nxt is not None and _is_chore(nxt)
    said = [u for u in rest if u.pos != "PUNCT"]
    if said and QUESTION_START_RE.match(said[0].text):
        return False  # "save this, when is it due": a question asked beside it
    return all(u.lower in _WHERE_OR_WHEN for u in said) or any(u.dep == "nsubj" and u.lower not in ("you", "u", "i") for u in said)


#: Errands no model runs, whatever they are done with ("order more from the supplier", "upload it
#: to my drive", "text it to her", "book a table")
_ERRANDS = {"order", "buy", "book", "schedule", "upload", "email", "print", "text", "post", "pay"}
#: What is put on to be played ("put some lullabies on")
_PLAYED = {"music", "song", "lullaby", "playlist", "radio", "podcast", "album", "tune", "record", "show", "movie", "tv", "kettle"}
#: Writings an errand may ask to be made first ("pay me a compliment", "schedule a tweet about the sale")
_WRITINGS = {"song", "photo", "letter", "message", "note", "compliment", "tweet", "reply", "joke", "sketch", "speech"}


def runs_an_errand(toks) -> bool:
    """The clause's command is an errand done outside any model ("then order more from the
    supplier", "and upload it to my drive after", "put some lullabies on", "forward it to Jo"),
    and it names nothing a model makes: no result, language, form or question ("send it in
    French", "email me the summary", "print what it says")."""
    if any(t.lemma in RESULT_NAMES or t.lemma in _FORMS or t.tag in QUESTION_TAGS or t.text == "?" or is_language(t.lower)
           for t in toks):
        return False
    k = next((k for k, t in enumerate(toks) if t.pos == "VERB" and t.dep not in ("aux", "auxpass", "amod")), None)
    if k is None or toks[k].tag not in ("VB", "VBP", "VBD") or any(u.dep == "nsubj" and u.lower not in ("you", "u") for u in toks[:k]):
        return False  # not a command ("she'll print it herself"); "put" may be tagged as past
    if any(t.lemma in _MADE_THINGS | _WRITINGS and toks[n - 1].lower in ("a", "an", "some") for n, t in enumerate(toks) if n > k):
        return False  # "post a picture of a sunset", "order a poem about pizza": the thing is to be made
    if any(t.pos == "VERB" and t.tag == "VB" for t in toks[k + 1:]) or toks[k].lemma == "order" and any(t.lower == "by" for t in toks):
        return False  # "email back: write a polite reply", "order the objects by size"
    verb = toks[k]
    if verb.lemma in _SENDING:
        return _sent_as_is(toks, k)
    if verb.lemma == "put":  # "put some lullabies on", not "put a hat on the dog" nor "put a vintage filter on"
        return any(u.lemma in _PLAYED for u in toks[k + 1:]) and any(
            u.lower == "on" and (u.dep == "prt" or n + 1 == len(toks) or toks[n + 1].pos in ("PUNCT", "CCONJ")) for n, u in enumerate(toks) if n > k)
    return verb.lemma in _ERRANDS


#: Questions about the world right now, which no model here answers ("what time is it rn", "how's the weather")
_WORLD_NOW_RE = re.compile(r"\b(?:what(?:'s| is) the (?:time|date|weather)(?: like| looking(?: like)?)?|what time is it|what day is (?:it|today)"
                           r"|how(?:'s| is) the weather(?: looking)?)(?:,? (?:now|rn|right now|today|tonight|tomorrow|here|there|at the moment"
                           r"|in [A-Z]?\w+(?: [A-Z]\w+)?))*\s*[?.!]*\s*$", re.I)
#: ... unless asked of something given ("what's the date on the invoice", "what's the weather in this photo")
_OF_A_THING_RE = re.compile(r"\b(?:this|these|that|those)\b|\b(?:on|in|of|from|at|for) (?:the|it|my|her|his|their)\b", re.I)


def asks_the_world_now(clause: str) -> bool:
    """The clause ends asking the time, the date or the weather, of no file or text ("... also what
    time is it rn"): the chat answers it, and no step on the files beside it does. Not "what time
    is it open till?"."""
    return bool(_WORLD_NOW_RE.search(clause)) and not _OF_A_THING_RE.search(clause)


def without_questions_of_the_world(found: list[tuple[int, int, str]], spans: list, quotes: list) -> list[tuple[int, int, str]]:
    """``found`` less the steps of clauses that ask the time or the weather (``asks_the_world_now``),
    when a step of another clause is left: "transcribe it pls. also what time is it rn" transcribes;
    "what time is it?" alone, with a photo of a clock, is left as the model read it. Not a clause
    with quoted words ("translate 'what time is it' into Spanish")."""
    asking = {i for i, s in enumerate(spans) if asks_the_world_now(s.text) and not _holds_quote(s, quotes)}
    if not any(i not in asking for i, _, _ in found):
        return found
    return [f for f in found if f[0] not in asking]


def without_questions_to_the_assistant(found: list[tuple[int, int, str]], spans: list, quotes: list,
                                       tokens_in: Callable[[Any], list], makers: frozenset[str] = frozenset()) -> list[tuple[int, int, str]]:
    """``found`` less the steps (not the chat) of clauses that ask the assistant about itself
    (``asks_about_the_assistant``) with no quoted words in them ("what's your name anyway? do I
    just keep calling you 'computer'": no answer read from the quoted word). Not a question about a
    thing an earlier clause asks to be made (a step in ``makers``): "paint a bowl of fruit. how many
    apples are in your painting?" asks about that painting."""
    made_at = min((i for i, _, label in found if label in makers), default=len(spans))

    def about_what_was_made(i: int) -> bool:
        toks = tokens_in(spans[i])
        return i > made_at and any(t.lemma in _MADE_THINGS and t.dep != "compound" for t in toks)

    return [f for f in found if f[2] == "conversational" or _holds_quote(spans[f[0]], quotes)
            or about_what_was_made(f[0]) or not asks_about_the_assistant(tokens_in(spans[f[0]]))]


def asks_about_the_assistant(toks) -> bool:
    """The clause asks the assistant about itself ("what's your name anyway?", "r u like chatgpt
    or smth?", "how are you today?"): the chat answers it. Not a request put as a question ("can
    you ...", "would you ..."), nor one about a thing pointed at ("what's your take on this?")."""
    words = [t.lower for t in toks]
    if "?" not in words and not any(t.tag in QUESTION_TAGS for t in toks[:1]):
        return False
    if any(t.tag == "MD" or t.lower in ("this", "these", "that", "those") or t.lemma in RESULT_NAMES or is_language(t.lower)
           for t in toks):
        return False  # nor one about what it made ("is your translation right?"), nor words to translate
    if any(t.pos == "VERB" and (t.tag == "VB" or t.tag == "VBP" and t.dep in ("ROOT", "conj")) and t.lemma not in ("be", "do", "have")
           for t in toks):
        return False  # "are you free to help me write a cover letter?", "how r u doing, paint me a sunset": a request
    return any(w in ("your", "ur", "yours") for w in words) or any(
        a in ("are", "r") and b in ("you", "u") for a, b in zip(words, words[1:]))

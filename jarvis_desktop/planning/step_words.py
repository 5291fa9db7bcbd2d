"""The words a step works from, cut out of the request: a prompt without its polite lead-in, the
inline words of "say hello out loud", an edit's instruction. Plain text in, text out."""

from __future__ import annotations

import re
from functools import lru_cache

from .as_written import HESITATION
from .detect import QUESTION_START_RE, named_control_map
from .extract import FILE_RE, Span

#: Tasks whose text input is the content to process (not a prompt to write from): when no text
#: is given they read it out of an attached image or recording first.
CONTENT_TASKS = {
    "summarization", "translation", "token-classification", "text-classification", "text2text-generation",
    "text-to-speech", "sentence-similarity", "question-answering", "conversational",
}

#: Verbs that open a command after a greeting ("yo, draw me a dragon"), not a message's words ("hi mum, ...")
_COMMANDS = r"draw|paint|sketch|make|create|generate|write|compose|give|show|tell|say|read|translate|summari[sz]e|describe|transcribe"
LEAD_RE = re.compile(
    r"^\W*(?:(?:and|also|then|finally|lastly|next|afterwards|additionally|please|so|now|ok|okay|yeah|"
    r"(?:hey|hi|hello|yo)(?=\W*(?:can|could|would|will|please|so|ok|okay|i|um|uh|" + _COMMANDS + r")\b)|"  # not "Hi mum, ..."
    r"(?:first(?:ly)?(?:\s+of\s+all)?)(?=\W*(?:can|could|would|will|please|i|" + _COMMANDS + r")\b)|"  # not "first light on the bay"
    r"basically|actually|anyway|you\s+know|(?:well|right|alright|oh)(?=\s*,)|" + HESITATION + r")\b\W*)*"
    r"(?:(?:can|could|would|will) you(?: please)?(?: also)?(?: help me| assist me(?: in)?)?|i(?:'d| would) like (?:you )?to|i want (?:you )?to|i need (?:you )?to|help me|please)?\s*",
    re.I,
)


def prompt_text(text: str) -> str:
    """A step's words without the polite lead-in, as the text a generation task works from."""
    s = LEAD_RE.sub("", text.strip()).strip(" ,;")
    return (s[0].upper() + s[1:]) if s else text.strip()


def generation_prompt(clauses: list[Span], own: int, stepless: set[int]) -> str:
    """What a text-generation step writes from: its own clause and the clauses that ask for no
    step (what the request says around it), not the clauses of the other steps ("write a poem
    about rain, then draw it" must not ask the writer to draw)."""
    kept = [w for k, c in enumerate(clauses) if (k == own or k in stepless) and (w := c.text.strip(" ,;"))]
    ended = [w + ("." if nxt[:1].isupper() and w[-1] not in ".!?" else "") for w, nxt in zip(kept, kept[1:] + [""])]
    return prompt_text(" ".join(ended))


#: "say X out loud", "make a voice note saying X", "translate X into French", "summarize: X": the command
#: around the words to work on.
_INLINE_SUBJECT_RE: dict[str, re.Pattern] = {
    "text-to-speech": re.compile(
        r"^(?:(?:make|record|create|send|leave|give)\s+(?:me\s+|her\s+|him\s+|them\s+|us\s+)?an?\s+(?:\w+\s+)?(?:voice|audio|spoken)\s+"
        r"(?:message|note|memo|clip|greeting|reminder|recording)\s+(?:saying|that\s+says|to\s+say)"
        r"|say|speak|read(?:\s+out)?|(?:how\s+(?:do|would|should|can)\s+(?:you|i|we|one)\s+)?pronounce|voice|narrate|announce)\s+(?:(?:the\s+)?(?:words?|sentence|phrase|text|following)\s+)?"
        r"(?P<s>.+?)(?:\s+(?:out\s+loud|aloud|for\s+me|please|in\s+a\s+\w+\s+voice))*[.!]?$", re.I | re.S),
    "translation": re.compile(
        r"^(?:translate|say|turn|put|change|convert|how\s+(?:do|would|could|can|should|does)\s+(?:i|you|we|one|someone)\s+say)\s+"
        r"(?:(?:the\s+)?(?:words?|sentence|phrase|text)\s+)?(?P<s>.+?)(?:\s+(?:from\s+\w+\s+)?(?:in|into|to)\s+[A-Z]\w+)"
        r"(?:\s+(?:please|for\s+me))*[.!?]?$", re.I | re.S),
    "summarization": re.compile(r"^(?:summari[sz]e|shorten|condense|sum\s+up)\s+(?P<s>.+)$", re.I | re.S),
    "text-classification": re.compile(
        r"^(?:what\s+is\s+the\s+(?:sentiment|mood|tone)\s+of|classify|(?:analy[sz]e|detect)\s+the\s+(?:sentiment|mood|tone)\s+of)\s+(?P<s>.+?)[?.!]?$", re.I | re.S),
    "token-classification": re.compile(
        r"^(?:find|extract|list|identify|tag)\s+(?:all\s+)?(?:the\s+)?(?:names|entities|named\s+entities|people|places|dates)(?:\s+mentioned)?\s+in\s+(?P<s>.+?)[.!?]?$", re.I | re.S),
}
#: What a command points at when its words are elsewhere ("read this aloud"): not the words themselves.
_POINTERS = {"this", "it", "that", "these", "them", "the text", "this text", "the following", "the result", "the answer"}


def inline_subject(task: str, text: str) -> str:
    """The words a content task works on when they are written inline: after a colon, or inside
    the command ("say hello world out loud" -> "hello world"). Falls back to the whole step."""
    s = prompt_text(text)
    head, colon, tail = s.partition(":")
    if colon and tail.strip() and len(head.split()) <= 8:
        return tail.strip()
    pattern = _INLINE_SUBJECT_RE.get(task)
    m = pattern.match(s.strip()) if pattern else None
    if m:
        subject = m.group("s") if task == "text-to-speech" else _HESITATION_RE.sub("", m.group("s"))  # "translate uh hello into French"
        subject = subject.strip(" ,;")
        if subject and subject.lower() not in _POINTERS:
            return subject[0].upper() + subject[1:] if task != "text-to-speech" else subject
    return s


def instruction(text: str, start: int, clause: Span, image_words: frozenset[str] = frozenset()) -> str:
    """The edit instruction: the step from its verb (at ``start``) to the end of its clause, the
    picture it works on called "it" ("make selfie.jpg look like a van gogh", "turn the picture you
    made into a sketch" -> "make it look like ...", "turn it into ..."): the editing model is given
    the picture itself, and a file's name or "this photo" in its words only blurs them."""
    s = text[start : clause.end].strip(" ,.;?!")
    s = re.sub(r"^(?:(?:and|then|also|but)\b\s*)+", "", re.sub(r"\s+", " ", s), flags=re.I)
    s = LEAD_RE.sub("", s) or s  # "help me change the sky to orange": the help is not the edit
    s = _picture_named(image_words).sub("it", s)
    return (s[0].upper() + s[1:]) if s else "Edit the image"


@lru_cache(maxsize=4)
def _picture_named(image_words: frozenset[str]) -> re.Pattern:
    """A picture named in an edit's words: a file's name, or "this / the / my (one word) photo
    (file name) (you made)"."""
    file = FILE_RE.pattern
    nouns = "|".join(sorted((re.escape(w) for w in image_words if w.isalpha()), key=len, reverse=True))
    named = (rf"\b(?:this|that|the|my|your|our)\s+(?:[\w-]+\s+)?(?:{nouns})\b(?:\s+{file})?"
             r"(?:\s+(?:you\s+(?:just\s+)?made|i\s+took))?|" if nouns else "")
    return re.compile(rf"(?:{named}{file})", re.I)


#: Verbs that ask for the answer to the question after them ("tell me whether ...", "check if ...",
#: "figure out what ...")
#: The tags of question words (who, what, which, whose, where, when, how, why)
QUESTION_TAGS = frozenset({"WP", "WRB", "WDT", "WP$"})
#: Words that open a clause before its question: "and when does it start?"
QUESTION_OPENERS = frozenset("and then also plus so but ok okay oh please".split())
ASKING_VERBS = frozenset({"tell", "say", "check", "see", "know", "ask", "find", "work", "figure", "guess", "speak",
                          "answer", "count"})
#: "tell me (out loud) whether ...", "check if ...": the asking around a question put indirectly
_ASKED_RE = re.compile(
    r"^(?:.*?\b(?:" + "|".join(sorted(ASKING_VERBS)) + r")(?:\s+out)?\b(?:\s+(?:me|us))?"
    r"(?:\s+(?:out\s+loud|aloud))?\s+)(?P<q>(?:(?:by|in|at|on|from|to|for|with|until)\s+(?=which\b|what\b|whom\b))?"
    r"(?:whether|if|what|how|which|who|whom|where|whose|when|why)\b.+)$", re.I | re.S)
#: "whether there is a dragon in it" -> "is there a dragon in it?"
_YES_NO_RE = re.compile(r"^(?:whether|if)\s+(?P<subj>there|it|this|that|they|he|she)\s+(?P<verb>is|are|was|were|has|have)\b(?P<rest>.*)$", re.I | re.S)

_WH_ORDER_RE = re.compile(r"^(?P<wh>(?:what|which|who|where|whose)(?:\s+(?:colou?r|kind|sort|type|size|time|day|object|one))?)\s+"
                          r"(?P<subj>(?:the|this|that|these|those|its|my|your|her|his|their)\s+[^,;]+?|it|they)\s+"
                          r"(?P<verb>is|are|was|were)\b(?P<rest>.*)$", re.I | re.S)


def question_asked(clause: str) -> str:
    """A question a clause asks indirectly, put directly: "tell me whether there is a dragon in it"
    -> "Is there a dragon in it?", "say how many people are in it" -> "How many people are in it?".
    The clause's own words when it asks nothing indirectly."""
    words = prompt_text(clause)
    m = _ASKED_RE.match(words)
    if not m:
        return words
    q = m.group("q").strip(" ,.;!?")
    yn = _YES_NO_RE.match(q)
    if yn:
        subj, verb, rest = yn.group("subj").lower(), yn.group("verb").lower(), yn.group("rest")
        if verb in ("has", "have"):
            q = f"{'does' if verb == 'has' else 'do'} {subj} have{rest}"
        else:
            q = f"{verb} {subj}{rest}"
    elif q.split()[0].lower() in ("whether", "if"):
        q = q.split(None, 1)[1] if len(q.split()) > 1 else q
    elif wh := _WH_ORDER_RE.match(q):  # "what color the car is in it" -> "what color is the car in it"
        q = f"{wh.group('wh')} {wh.group('verb')} {wh.group('subj')}{wh.group('rest')}"
    q = re.sub(r"\s+(?:out\s+loud|aloud|for\s+me)$", "", q.strip(), flags=re.I)
    return q[0].upper() + q[1:] + "?"


def after_lead_in(text: str) -> str:
    """The question after a lead-in set off by a comma ("from this passage, who approves ...?",
    "according to this, when did ..."): from the first comma after which a question starts; the
    text itself when it starts as one, or when no question follows a comma."""
    if QUESTION_START_RE.match(text):
        return text
    return next((text[m.end():] for m in re.finditer(r",\s+", text) if QUESTION_START_RE.match(text[m.end():])), text)


#: "according to this", "from the passage": where the answer is to come from, not part of the question
_SOURCE_SAID_RE = re.compile(r"[\s,]*\b(?:according to|from|based on|going by|using(?: only)?) (?:this|that|the|it)(?: \w+)?$", re.I)


def question_without(question: str, passage: str) -> str:
    """The question with the passage it is asked about taken out: "according to this, when did the
    museum open: the museum opened in 1921" -> "When did the museum open?". An extractive
    reader finds the answer's span better from the question alone."""
    if not passage.strip() or passage not in question:
        return question
    q = after_lead_in(question.replace(passage, " ").strip(" \t\n:;,-\u2014\"'\u201c\u201d\u2018\u2019"))
    q = _SOURCE_SAID_RE.sub("", q).rstrip(" ,;:")
    if not QUESTION_START_RE.match(q):
        return question
    return q[0].upper() + q[1:] + ("" if q.endswith("?") else "?")


#: Words for the thing made that say nothing of what it shows ("a picture of", "a short video of")
_MEDIUM = r"(?:picture|image|pic|img|photo|photograph|snapshot|video|vid|clip|animation|gif|render(?:ing)?|artwork|wallpaper)s?"
_FILLER = r"(?:(?:like|" + HESITATION + r"|maybe|just|basically|kinda|sort of)\b[\s,]*)*"
#: "img: sunset over lavender fields", "a picture of X", "an image showing X": the subject after it
_DEPICTS_RE = re.compile(r"\b" + _MEDIUM + r"(?:\s*:\s*|\s+(?:of|showing|depicting|that shows)[\s,]+)" + _FILLER, re.I)
#: "draw me a dragon", "make a gentle painting of ...": the verb of making before the thing to
#: show (a style named stays)
_MAKING = r"make|create|draw|render|generate|produce|paint|design"
_MAKE_RE = re.compile(r"^(?:" + _MAKING + r"|sketch|illustrate|animate|visuali[sz]e|do|give)"
                      r"(?:\s+(?:me|us|for me))?[\s,]+" + _FILLER, re.I)
#: "use the pose in this to make a robot ...", "..., but make it a knight", "turn it into a fox":
#: after words that say what guides the picture, what comes after the verb is the thing to show
_MADE_FROM_RE = re.compile(r"(?:^|\b(?:to|and|but|then)\s+)(?:" + _MAKING + r"|turn)"
                           r"(?:\s+(?:it|this|them)(?:\s+into)?|\s+(?:me|us))?[\s,]+" + _FILLER, re.I)
#: where one step's words end and the next one's begin ("..., and then read it aloud", "pose -> robot")
_STEP_BOUNDARY_RE = re.compile(r"[\s,;]+(?:and\s+)?(?:then|also|after that|afterwards|next)\b|\s*(?:->|\u2192)\s*", re.I)
#: What a picture is for, beside what it shows ("... to go with it", "... to match them")
TO_GO_WITH = r"to\s+(?:go\s+(?:with|alongside)|match|accompany)\s+(?:it|them|that|this)"
_TAIL_RE = re.compile(rf"[\s,]+(?:please|pls|for me|lol|{TO_GO_WITH})\W*$", re.I)


#: Words that say something of a photo stays as it is in a new picture ("keep her pose", "the same
#: layout", "exactly where it is")
KEEPING = frozenset({"keep", "keeping", "kept", "keeps", "same", "exact", "exactly", "preserve", "preserving", "retain",
                     "retaining", "hold", "holding", "maintain", "maintaining", "identical", "unchanged"})


def asked_of_you(toks: list) -> bool:
    """The words ask the assistant to do something, as a question in form ("can you ...", "could
    you please ...?"): a question mark then ends a request, not a question about the file."""
    return any(t.lower in ("you", "u") and k and toks[k - 1].tag == "MD" for k, t in enumerate(toks))


def picture_prompt(text: str, guided: bool = False) -> str:
    """What a picture or video asked for in ``text`` should show, as a generator's prompt: "can you
    make me a picture of a corgi surfing at sunset" -> "a corgi surfing at sunset", "draw me a
    dragon made of clouds" -> "a dragon made of clouds"; a style named stays ("make a gentle
    painting of a meadow" -> "a gentle painting of a meadow"). Of a clause holding more than one
    step's words, the part that names no file (``guided``: nor the control map) is the picture's
    ("hed outline of a.jpg then a charcoal fisherman"). The words without lead-in otherwise."""
    whole = prompt_text(text)
    parts = [p for p in _STEP_BOUNDARY_RE.split(whole) if p.strip(" ,;.!")] or [whole]
    unnamed = [p for p in parts if not FILE_RE.search(p)] or parts
    s = next((p for p in unnamed if not (guided and named_control_map(p))), unnamed[0])
    _, colon, rest = s.partition(":")
    if colon and _MAKE_RE.match(rest.strip()):
        s = rest.strip()  # "three jobs: paint a lighthouse in a storm": the command after the colon
    m = _MADE_FROM_RE.search(s)
    if m and (guided or FILE_RE.search(s, 0, m.start())) and not _DEPICTS_RE.search(s, 0, m.start()):
        s = s[m.end():]  # not "a cat trying to paint a portrait": there the whole is the picture
    elif m := _MAKE_RE.match(s):
        s = s[m.end():]
    if m := _DEPICTS_RE.search(s):
        s = s[m.end():]
    s = _TAIL_RE.sub("", s).strip(" ,;.!")
    return s or whole


#: What a question about a photo or document calls the file it asks about ("on this receipt")
_ASKED_OF = (r"(?:photo|picture|pic|image|scan|screenshot|shot|snap|receipt|invoice|bill|form|page|document|doc|letter|"
             r"card|sign|label|menu|poster|flyer|slide|timetable|schedule|calendar|prescription|contract|statement|"
             r"ticket|pass|chart|note|whiteboard|sheet)s?")
#: "... on this receipt", "... on it", "... according to the prescription", "... in grid.png": where the
#: answer is to be found, which the step is given anyway
_WHERE_ASKED_RE = re.compile(r"[\s,]+(?:on|in|from|of|according to)\s+(?:(?:this|that|the|my|these|those)\s+(?:[\w'-]+\s+){0,2}?"
                             + _ASKED_OF + r"(?:\s+i\s+\w+)?|it|this|that|" + FILE_RE.pattern + r")\s*$", re.I)
#: "..., read it to me", "... just say the amount": another step's words after the question
_SPEAK_AFTER_RE = re.compile(r"[\s,;]+(?:and\s+)?(?:please\s+|just\s+)?(?:read|say|tell|speak)"
                             r"(?:\s+(?:it|that|me|us|the\s+\w+|out\s+loud|aloud|to\s+me|back|for\s+me))+\s*$", re.I)
_LEADING_FILE_RE = re.compile(r"^(?:" + FILE_RE.pattern + r")\s*[-:,]?\s+", re.I)
_HESITATION_RE = re.compile(r"(?<![\w-])" + HESITATION + r"[\s,]*")
_COMMAND_RE = re.compile(r"(?:" + "|".join(ASKING_VERBS) + r"|list|describe|identify|detect|name|show|read|spot|label|caption|"
                         r"explain|examine|analy[sz]e|interpret|summari[sz]e|translate|help|look)\b", re.I)
_LOOK_UP_RE = re.compile(r"^(?:find|get|check|look up|give me|tell me)\s+(?=the\s)", re.I)


def tidy_question(question: str) -> str:
    """A question about a photo or document as its reader takes it best: without fillers ("what's
    the, uh, deadline"; as_written took the stumbles out), where to look ("... on this receipt"), or a later step's words ("...,
    read it to me"); a thing named alone asked for ("total", "find the due date") as "what is ...".
    The question unchanged when nothing is left of it."""
    q = _HESITATION_RE.sub("", question).strip()
    asked = q.endswith("?")
    q = q.rstrip(" ?.!")
    q = re.sub(r"^(what|where|when|who|how)s\b", r"\1's", q, flags=re.I)  # "whats the total"
    q = _LEADING_FILE_RE.sub("", q)  # "invoice_0419.png - amount owed"
    for rx in (_SPEAK_AFTER_RE, _WHERE_ASKED_RE, _SPEAK_AFTER_RE):
        cut = rx.sub("", q).strip(" ,;")
        if cut and not re.search(r"\b(?:is|are|was|were|'s|do|does|did)$", cut, re.I) and (
                len(cut.split()) >= 2 or not QUESTION_START_RE.match(q)):
            q = cut  # not "who is in it" -> "who is"
    q = _LOOK_UP_RE.sub("", q) + ("?" if asked else "")
    named = re.match(r"(?:the|my|your|its)\s+\S+(?:\s+\S+)?$", q, re.I) or len(q.split()) <= 2
    if q and named and not QUESTION_START_RE.match(q) and not asked and not _COMMAND_RE.match(q):
        q = "what is " + (q if re.match(r"(?:the|my|your)\s", q, re.I) else "the " + q)
    return (q[0].upper() + q[1:]) if q else question


#: A question asked for its answer, after a greeting or a name at most ("what's the gist?", "hey
#: jarvis, how many birds?", "do you ever get tired?"); not detect.QUESTION_START_RE, which also
#: takes "could you ...?", a command put as a question
DIRECT_QUESTION_RE = re.compile(r"(?:^|^[^,]{1,24},\s*)(?:and\s+|so\s+|ok\s+)?(?:what|how|who|which|where|when|why|whose"
                                r"|do|does|did|is|are|was|were|has|have|am)(?:'s|s)?\b", re.I)
#: Verbs that say what the user has, not what to do ("I have a photo ...", "here is the text").
STATIVE_VERBS = frozenset({"have", "be", "get", "attach", "include", "contain", "show"})
#: The words that address the assistant ("how's your day going?", "what is your name?")
YOU_WORDS = frozenset({"you", "your", "yours", "u", "ur", "yourself"})
_CHOICE_CUES = {"is", "are", "was", "were", "whether", "if", "does", "do", "did", "sound", "sounds", "seem", "seems"}


def asks_a_choice(toks: list) -> bool:
    """The clause (its tokens) asks which of two or more things something is: a question word, then
    "A or B" ("whether it's a warning or just info", "is it mean or wholesome", "if it sounds urgent
    or not")."""
    lows = [t.lower for t in toks]
    return "or" in lows[1:] and any(w in _CHOICE_CUES for w in lows[:lows.index("or")])

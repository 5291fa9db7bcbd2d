"""The task types a plan may use, with the kinds of input they take and the output they give.

One table shared by the planners (what may be asked for), the validator (are the arguments of the
right kind), the selector (which catalog task to look up) and the experts (what they must return).
The names are HuggingGPT's (Hugging Face pipeline tags plus JARVIS's ControlNet family).
"""

from __future__ import annotations

from dataclasses import dataclass

#: Media kinds that flow between tasks. ``text`` args are literals or generated text; the other
#: kinds are files (attached by the user or produced by an earlier task).
MEDIA_KINDS = ("text", "image", "audio", "video")
FILE_KINDS = ("image", "audio", "video")

#: Argument name -> media kind. ``context`` and ``text2`` are second text inputs (question
#: answering's passage, sentence similarity's other sentence).
ARG_KINDS: dict[str, str] = {
    "text": "text",
    "context": "text",
    "text2": "text",
    "image": "image",
    "audio": "audio",
    "video": "video",
}

#: Literal options some tasks accept besides their media inputs (never resources). ``need``:
#: image-to-text's job, "caption" or "read" (the text in the image); see experts/image_need.py.
PARAM_ARGS = ("target_language", "source_language", "labels", "need")


@dataclass(frozen=True)
class TaskType:
    """What one task type consumes and produces."""

    name: str
    inputs: tuple[str, ...]
    output: str
    description: str
    optional: tuple[str, ...] = ()
    #: text-only tasks may be answered by the controller LLM when no local model runs them
    llm_capable: bool = False

    @property
    def arg_names(self) -> tuple[str, ...]:
        return self.inputs + self.optional + PARAM_ARGS


def _t(name: str, inputs: str, output: str, description: str, optional: str = "", llm: bool = False) -> TaskType:
    return TaskType(name, tuple(inputs.split()), output, description, tuple(optional.split()), llm)


_CONTROL_KINDS = ("canny", "hed", "mlsd", "openpose", "normal", "seg", "depth")

_TYPES: list[TaskType] = [
    _t("token-classification", "text", "text", "Find named entities (people, places, dates...) or parts of speech in a text."),
    _t("text-classification", "text", "text", "Label a text, e.g. its sentiment or topic."),
    _t("text2text-generation", "text", "text", "Rewrite or transform a text (paraphrase, correct grammar).", llm=True),
    _t("summarization", "text", "text", "Write a shorter version of a text.", llm=True),
    _t("translation", "text", "text", "Translate a text into another language.", llm=True),
    _t("question-answering", "text", "text", "Answer a question from a given passage of text.", optional="context", llm=True),
    _t("conversational", "text", "text", "Reply to a message as a chat partner.", llm=True),
    _t("text-generation", "text", "text", "Continue or write new text from a prompt.", llm=True),
    _t("sentence-similarity", "text", "text", "Say how similar two texts are.", optional="text2"),
    _t("tabular-classification", "image", "text", "Classify a table given as an image or a CSV file."),
    _t("object-detection", "image", "image", "Find and box the objects in an image."),
    _t("image-classification", "image", "text", "Say what an image shows, as one label."),
    _t("image-to-image", "image", "image", "Transform or edit an image, optionally following a text instruction.", optional="text"),
    _t("image-to-text", "image", "text", "Describe an image in words or read the text in it."),
    _t("text-to-image", "text", "image", "Generate an image from a text description."),
    _t("text-to-video", "text", "video", "Generate a short video from a text description."),
    _t("visual-question-answering", "image text", "text", "Answer a question about an image."),
    _t("document-question-answering", "image text", "text", "Answer a question about a document image."),
    _t("image-segmentation", "image", "image", "Divide an image into labelled regions."),
    _t("depth-estimation", "image", "image", "Estimate the depth of each pixel of an image."),
    _t("text-to-speech", "text", "audio", "Read a text aloud into an audio file."),
    _t("automatic-speech-recognition", "audio", "text", "Transcribe speech in an audio file."),
    _t("audio-to-audio", "audio", "audio", "Enhance or separate the sources of an audio file."),
    _t("audio-classification", "audio", "text", "Label an audio clip (speech command, emotion, sound)."),
]
_TYPES += [
    _t(f"{k}-control", "image", "image", f"Extract a {k} control map from an image for guided generation.")
    for k in _CONTROL_KINDS
]
_TYPES += [
    _t(f"{k}-text-to-image", "text image", "image", f"Generate an image from a text guided by a {k} control map.")
    for k in _CONTROL_KINDS
]

TASK_TYPES: dict[str, TaskType] = {t.name: t for t in _TYPES}

#: Plain-language aliases a controller may produce for a known type.
TASK_ALIASES: dict[str, str] = {
    "ner": "token-classification",
    "named-entity-recognition": "token-classification",
    "sentiment-analysis": "text-classification",
    "image-captioning": "image-to-text",
    "captioning": "image-to-text",
    "ocr": "image-to-text",
    "image-text-to-text": "image-to-text",
    "speech-recognition": "automatic-speech-recognition",
    "asr": "automatic-speech-recognition",
    "speech-to-text": "automatic-speech-recognition",
    "tts": "text-to-speech",
    "text-to-audio": "text-to-speech",
    "vqa": "visual-question-answering",
    "image-generation": "text-to-image",
    "image-editing": "image-to-image",
    "summarisation": "summarization",
    "chat": "conversational",
    "depth": "depth-estimation",
    "segmentation": "image-segmentation",
}


def normalize_task_name(name: str) -> str | None:
    """Map a controller's spelling of a task to a known type, or None when it is not one."""
    key = str(name).strip().lower().replace("_", "-").replace(" ", "-")
    if key in TASK_TYPES:
        return key
    return TASK_ALIASES.get(key)


def kind_of_output(task: str) -> str:
    return TASK_TYPES[task].output

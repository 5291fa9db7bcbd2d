"""Hosted inference: the fallback for models that are not on this machine.

Goes through ``huggingface_hub.InferenceClient`` (Hugging Face's routed inference, or the user's
own Text Generation Inference / Inference Endpoints server when ``hosted_base_url`` is set), with
the user's token, only when the settings allow hosted inference and offline mode is off. Busy or
rate-limited servers (429, 503) are retried with exponential backoff, honouring Retry-After;
every failure ends as one sentence saying what happened and what the user can do.
"""

from __future__ import annotations

import io
import logging
from typing import Any, Callable

from ..media import MediaError, is_workbook, load_image, read_text_file
from .base import ExpertError, RunContext, TaskOutput

log = logging.getLogger(__name__)

RETRY_STATUS = (429, 503)

#: Task types hosted inference can run (control maps are computed locally; depth has no client call).
HOSTED_TASKS = frozenset({
    "token-classification", "text-classification", "text2text-generation", "summarization", "translation",
    "question-answering", "conversational", "text-generation", "sentence-similarity", "tabular-classification",
    "object-detection", "image-classification", "image-to-image", "image-to-text", "text-to-image", "text-to-video",
    "visual-question-answering", "document-question-answering", "image-segmentation", "text-to-speech",
    "automatic-speech-recognition", "audio-to-audio", "audio-classification",
})


def hub_offline() -> bool:
    """HF_HUB_OFFLINE=1 in the environment blocks every Hub request, hosted inference included."""
    from huggingface_hub import constants

    return bool(constants.is_offline_mode())


class HostedUnavailable(ExpertError):
    """The hosted model could not answer (down, busy after retries, unknown, or unauthorised)."""


class HostedBackend:
    name = "hosted"
    hosted = True

    def __init__(self, settings: Any, retries: int = 3, backoff: float = 1.0, max_wait: float = 20.0,
                 client_factory: Callable[..., Any] | None = None):
        self.settings = settings
        self.retries = retries
        self.backoff = backoff
        self.max_wait = max_wait
        self._client_factory = client_factory

    # --- what can run --------------------------------------------------------------------
    def models(self, task: str) -> list[str]:
        return []  # hosted models come from the catalog, never offered as "local"

    def where(self, task: str, model_id: str) -> str | None:
        if task in HOSTED_TASKS and self.settings.hosted_allowed and model_id and not model_id.startswith("builtin/"):
            return None if hub_offline() else "hosted"
        return None

    # --- client --------------------------------------------------------------------------
    def client(self, model_id: str):
        from huggingface_hub import InferenceClient

        timeout = float(getattr(self.settings, "task_timeout", 120.0) or 120.0)
        token = self.settings.hf_token or None
        if self._client_factory is not None:
            return self._client_factory(model_id=model_id, token=token, timeout=timeout)
        if self.settings.hosted_base_url:
            return InferenceClient(base_url=self.settings.hosted_base_url.rstrip("/"), token=token, timeout=timeout)
        return InferenceClient(model=model_id, provider="auto", token=token, timeout=timeout)

    def _call(self, task: str, model_id: str, fn: Callable[[Any], Any], ctx: RunContext) -> Any:
        from huggingface_hub.errors import HfHubHTTPError, InferenceTimeoutError

        client = self.client(model_id)
        for attempt in range(self.retries + 1):
            if ctx.cancel.cancelled:
                raise ExpertError(f"{task}: cancelled")
            try:
                return fn(client)
            except InferenceTimeoutError:
                raise HostedUnavailable(f"{task}: hosted model '{model_id}' did not answer in time. "
                                        f"Try again later, or run it locally: jarvis models pull {model_id}") from None
            except HfHubHTTPError as e:
                status = getattr(e.response, "status_code", None)
                if status in RETRY_STATUS and attempt < self.retries:
                    wait = self._wait(e, attempt)
                    log.info("%s: hosted %s answered %s; retrying in %.1fs", task, model_id, status, wait)
                    if ctx.cancel.wait(wait):
                        raise ExpertError(f"{task}: cancelled") from None
                    continue
                raise HostedUnavailable(self._message(task, model_id, status, e)) from None
            except (ConnectionError, OSError) as e:
                raise HostedUnavailable(f"{task}: cannot reach hosted inference ({type(e).__name__}). "
                                        f"Check the network, or run '{model_id}' locally: jarvis models pull {model_id}") from None
            except Exception as e:  # httpx errors and odd responses
                name = type(e).__name__
                if "Connect" in name or "Timeout" in name or "Network" in name:
                    raise HostedUnavailable(f"{task}: cannot reach hosted inference ({name}). Check the network, "
                                            f"or run '{model_id}' locally: jarvis models pull {model_id}") from None
                raise HostedUnavailable(f"{task}: hosted model '{model_id}' gave an unusable answer ({name}: {str(e)[:160]})") from None
        raise AssertionError("unreachable")

    def _wait(self, e, attempt: int) -> float:
        retry_after = None
        try:
            retry_after = float(e.response.headers.get("Retry-After"))
        except (TypeError, ValueError, AttributeError):
            pass
        wait = retry_after if retry_after is not None else self.backoff * (2 ** attempt)
        return max(0.0, min(wait, self.max_wait))

    def _message(self, task: str, model_id: str, status: int | None, e: Exception) -> str:
        local = f"run it locally instead: jarvis models pull {model_id}"
        if status in (401, 403):
            return f"{task}: hosted inference refused '{model_id}' (HTTP {status}). Set a valid HF_TOKEN with inference permission, or {local}"
        if status == 404:
            return f"{task}: '{model_id}' is not available on hosted inference (HTTP 404). Choose another model, or {local}"
        if status in RETRY_STATUS:
            return (f"{task}: hosted model '{model_id}' is busy or loading (HTTP {status}) after {self.retries + 1} tries. "
                    f"Try again in a minute, or {local}")
        return f"{task}: hosted inference failed for '{model_id}' (HTTP {status}). {local[0].upper() + local[1:]}"

    # --- running -------------------------------------------------------------------------
    def run(self, task: str, model_id: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        if not self.settings.hosted_allowed:
            raise ExpertError(f"{task}: hosted inference is switched off (offline or local-only mode)")
        try:
            out = self._run(task, model_id, args, ctx)
        except MediaError as e:
            raise ExpertError(f"{task}: {e}") from None
        out.model_id, out.where = model_id, "hosted"
        return out

    def _run(self, task: str, m: str, args: dict[str, Any], ctx: RunContext) -> TaskOutput:
        text = str(args.get("text") or "")
        seeded = {"seed": int(args["seed"])} if args.get("seed") else {}  # a copy of a step: its own take
        model = None if self.settings.hosted_base_url else m
        call = lambda fn: self._call(task, m, fn, ctx)  # noqa: E731

        def image_bytes() -> bytes:
            path = args.get("image")
            if not path:
                raise ExpertError(f"{task}: missing `image` argument")
            img = load_image(path)  # checks it is a readable, not huge image before uploading it
            buf = io.BytesIO()
            img.save(buf, format="PNG")
            return buf.getvalue()

        def audio_bytes() -> bytes:
            path = args.get("audio")
            if not path:
                raise ExpertError(f"{task}: missing `audio` argument")
            from ..media import load_audio

            load_audio(path)  # readable?
            with open(path, "rb") as f:
                return f.read()

        if task == "text-classification":
            r = call(lambda c: c.text_classification(text, model=model))
            labels = [{"label": x.label, "score": float(x.score)} for x in r]
            return TaskOutput(text=f"{labels[0]['label']} ({labels[0]['score']:.2f})" if labels else "(no label)", data={"labels": labels})
        if task == "token-classification":
            r = call(lambda c: c.token_classification(text, model=model))
            ents = [{"entity": x.entity_group or x.entity, "word": x.word, "score": float(x.score), "start": x.start, "end": x.end} for x in r]
            return TaskOutput(text="; ".join(f"{e['word']} ({e['entity']})" for e in ents) or "(no entities found)", data={"entities": ents})
        if task == "summarization":
            r = call(lambda c: c.summarization(text, model=model))
            return TaskOutput(text=r.summary_text, data={"summary": r.summary_text})
        if task == "translation":
            r = call(lambda c: c.translation(text, model=model, src_lang=args.get("source_language"), tgt_lang=args.get("target_language")))
            return TaskOutput(text=r.translation_text, data={"translation": r.translation_text})
        if task == "question-answering":
            r = call(lambda c: c.question_answering(question=text, context=str(args.get("context") or ""), model=model))
            r = r[0] if isinstance(r, list) else r
            return TaskOutput(text=r.answer, data={"answer": r.answer, "score": float(r.score)})
        if task in ("conversational",):
            r = call(lambda c: c.chat_completion([{"role": "user", "content": text}], model=model, max_tokens=512))
            reply = r.choices[0].message.content or ""
            return TaskOutput(text=reply, data={"generated_text": reply})
        if task in ("text-generation", "text2text-generation"):
            r = call(lambda c: c.text_generation(text, model=model, max_new_tokens=256, **seeded, **({"do_sample": True} if seeded else {})))
            return TaskOutput(text=str(r), data={"generated_text": str(r)})
        if task == "sentence-similarity":
            other = str(args.get("text2") or args.get("context") or "")
            if not other:
                raise ExpertError("sentence-similarity needs two texts: give `text` and `text2`.")
            r = call(lambda c: c.sentence_similarity(text, [other], model=model))
            return TaskOutput(text=f"Similarity: {float(r[0]):.3f}", data={"similarity": float(r[0])})
        if task == "tabular-classification":
            table = _table(args)
            r = call(lambda c: c.tabular_classification(table, model=model))
            return TaskOutput(text=", ".join(map(str, r)), data={"predictions": list(r)})
        if task == "image-classification":
            data = image_bytes()
            r = call(lambda c: c.image_classification(data, model=model))
            labels = [{"label": x.label, "score": float(x.score)} for x in r]
            return TaskOutput(text=", ".join(f"{x['label']} ({x['score']:.2f})" for x in labels), data={"labels": labels})
        if task == "object-detection":
            from .drawing import draw_boxes, save_image

            data = image_bytes()
            r = call(lambda c: c.object_detection(data, model=model))
            objects = [{"label": x.label, "score": float(x.score),
                        "box": {"xmin": int(x.box.xmin), "ymin": int(x.box.ymin), "xmax": int(x.box.xmax), "ymax": int(x.box.ymax)}} for x in r]
            path = save_image(draw_boxes(load_image(args["image"]), objects), ctx, "detected")
            summary = ", ".join(f"{o['label']} ({o['score']:.2f})" for o in objects) or "no objects"
            return TaskOutput(text=f"Found: {summary}. Boxes drawn in {path.name}", image=path, data={"objects": objects})
        if task == "image-segmentation":
            import base64

            from PIL import Image

            from .drawing import overlay_masks, save_image

            data = image_bytes()
            r = call(lambda c: c.image_segmentation(data, model=model))
            segments = []
            for x in r:
                mask = x.mask if not isinstance(x.mask, str) else Image.open(io.BytesIO(base64.b64decode(x.mask)))
                segments.append({"label": x.label, "score": x.score, "mask": mask})
            path = save_image(overlay_masks(load_image(args["image"]), segments), ctx, "segmented")
            return TaskOutput(text=f"Segments: {', '.join(s['label'] for s in segments)}. Masks drawn in {path.name}", image=path,
                              data={"segments": [{"label": s["label"], "score": s["score"]} for s in segments]})
        if task == "image-to-text":
            data = image_bytes()
            r = call(lambda c: c.image_to_text(data, model=model))
            return TaskOutput(text=r.generated_text, data={"caption": r.generated_text})
        if task == "visual-question-answering":
            data = image_bytes()
            r = call(lambda c: c.visual_question_answering(data, text, model=model))
            return TaskOutput(text=r[0].answer if r else "(no answer)", data={"answers": [{"answer": x.answer, "score": float(x.score)} for x in r]})
        if task == "document-question-answering":
            data = image_bytes()
            r = call(lambda c: c.document_question_answering(data, text, model=model))
            return TaskOutput(text=r[0].answer if r else "(no answer)", data={"answers": [{"answer": x.answer, "score": float(x.score)} for x in r]})
        if task in ("text-to-image", "image-to-image"):
            from .drawing import save_image

            if task == "text-to-image":
                img = call(lambda c: c.text_to_image(text, model=model, **seeded))
            else:
                data = image_bytes()
                img = call(lambda c: c.image_to_image(data, prompt=text or None, model=model))
            path = save_image(img, ctx, "image" if task == "text-to-image" else "edited")
            return TaskOutput(text=f"Image saved to {path.name}", image=path, data={"size": list(img.size)})
        if task == "text-to-video":
            blob = call(lambda c: c.text_to_video(text, model=model, **seeded))
            path = ctx.output_path("video", ".mp4")
            path.write_bytes(blob)
            return TaskOutput(text=f"Video saved to {path.name}", video=path)
        if task == "text-to-speech":
            blob = call(lambda c: c.text_to_speech(text, model=model))
            path = ctx.output_path("speech", _audio_suffix(blob))
            path.write_bytes(blob)
            return TaskOutput(text=f"Speech saved to {path.name}", audio=path)
        if task == "automatic-speech-recognition":
            data = audio_bytes()
            r = call(lambda c: c.automatic_speech_recognition(data, model=model))
            return TaskOutput(text=r.text.strip() or "(no words recognised)", data={"text": r.text})
        if task == "audio-classification":
            data = audio_bytes()
            r = call(lambda c: c.audio_classification(data, model=model))
            labels = [{"label": x.label, "score": float(x.score)} for x in r]
            return TaskOutput(text=", ".join(f"{x['label']} ({x['score']:.2f})" for x in labels), data={"labels": labels})
        if task == "audio-to-audio":
            import base64

            data = audio_bytes()
            r = call(lambda c: c.audio_to_audio(data, model=model))
            if not r:
                raise HostedUnavailable(f"{task}: hosted model '{m}' returned no audio")
            blob = r[0].blob if isinstance(r[0].blob, bytes) else base64.b64decode(r[0].blob)
            path = ctx.output_path("audio", _audio_suffix(blob))
            path.write_bytes(blob)
            return TaskOutput(text=f"Audio saved to {path.name}", audio=path, data={"label": r[0].label})
        raise ExpertError(f"{task}: hosted inference does not run this task type")


def _audio_suffix(blob: bytes) -> str:
    if blob[:4] == b"RIFF":
        return ".wav"
    if blob[:4] == b"fLaC":
        return ".flac"
    if blob[:4] == b"OggS":
        return ".ogg"
    return ".mp3" if blob[:3] == b"ID3" or blob[:2] == b"\xff\xfb" else ".wav"


def _table(args: dict[str, Any]) -> dict[str, list[str]]:
    """A CSV/TSV or workbook given as the task's file (or a CSV as text) -> the {column: values}
    table the API takes (a workbook's first sheet that has rows)."""
    import csv

    src = str(args.get("image") or args.get("text") or "")
    if is_workbook(src):
        from ..sheets import read_sheets

        rows = next((s.rows for s in read_sheets(src) if s.rows), [])
    else:
        if src.lower().endswith((".csv", ".tsv", ".txt")):
            src = read_text_file(src)
        first = src.splitlines()[0] if src.strip() else ""
        rows = list(csv.reader(io.StringIO(src), delimiter="\t" if "\t" in first else ","))
    if len(rows) < 2:
        raise ExpertError("tabular-classification needs a table: a CSV file with a header row and at least one data row")
    header, body = rows[0], rows[1:]
    return {h: [r[i] if i < len(r) else "" for r in body] for i, h in enumerate(header)}

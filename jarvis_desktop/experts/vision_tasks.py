"""Image task types on transformers models. Pictures of the result (boxes, masks, depth) are saved
in the session's output folder; the structured result travels in ``data``."""

from __future__ import annotations

from typing import Any

from ..media import load_image
from .base import ExpertError, RunContext, TaskOutput
from .cached import need
from .drawing import depth_to_image, draw_boxes, label_map, overlay_masks, save_image
from .local_cache import ModelInfo


def run(backend, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext, device: str) -> TaskOutput:
    image = load_image(need(args, "image", task))
    if task == "image-classification":
        with backend.pipeline(task, info, device) as pipe:
            labels = pipe(image, top_k=5)
        labels = [{"label": x["label"], "score": float(x["score"])} for x in labels]
        return TaskOutput(text=", ".join(f"{x['label']} ({x['score']:.2f})" for x in labels), data={"labels": labels})
    if task == "object-detection":
        return detect(backend, info, image, ctx, device)
    if task == "image-segmentation":
        return segment(backend, info, image, ctx, device)
    if task == "depth-estimation":
        depth = estimate_depth(backend, info, image, device)
        path = save_image(depth_to_image(depth), ctx, "depth")
        return TaskOutput(text=f"Depth map saved to {path.name}", image=path,
                          data={"shape": list(depth.shape), "min": float(depth.min()), "max": float(depth.max())})
    if task == "image-to-text":
        return caption(backend, info, image, device, prompt=str(args.get("text") or ""))
    if task == "visual-question-answering":
        return answer_about_image(backend, info, image, need(args, "text", task), device)
    if task == "document-question-answering":
        return answer_about_document(backend, info, image, need(args, "text", task), device)
    if task == "openpose-control":
        from .control import pose_map

        keypoints = estimate_pose(backend, info, image, device)
        path = save_image(pose_map(keypoints, image.size), ctx, "openpose")
        return TaskOutput(text=f"Pose map ({len(keypoints)} person(s)) saved to {path.name}", image=path,
                          data={"people": keypoints})
    raise ExpertError(f"{task}: not an image task")


def detect(backend, info: ModelInfo, image, ctx: RunContext, device: str) -> TaskOutput:
    with backend.pipeline("object-detection", info, device) as pipe:
        found = pipe(image, threshold=backend.detection_threshold)
    objects = [{"label": o["label"], "score": float(o["score"]), "box": {k: int(v) for k, v in o["box"].items()}}
               for o in sorted(found, key=lambda o: -o["score"])]
    path = save_image(draw_boxes(image, objects), ctx, "detected")
    if objects:
        text = f"Found {len(objects)} object(s): " + ", ".join(f"{o['label']} ({o['score']:.2f})" for o in objects[:20])
    else:
        text = "No objects found"
    return TaskOutput(text=f"{text}. Boxes drawn in {path.name}", image=path, data={"objects": objects})


def segment(backend, info: ModelInfo, image, ctx: RunContext, device: str) -> TaskOutput:
    segments = segments_of(backend, info, image, device)
    path = save_image(overlay_masks(image, segments), ctx, "segmented")
    total = image.size[0] * image.size[1]
    data = []
    import numpy as np

    for s in segments:
        m = np.asarray(s["mask"].convert("L")) > 127
        ys, xs = np.nonzero(m)
        box = {"xmin": int(xs.min()), "ymin": int(ys.min()), "xmax": int(xs.max()), "ymax": int(ys.max())} if len(xs) else None
        data.append({"label": s["label"], "score": None if s.get("score") is None else float(s["score"]),
                     "area": round(float(m.sum()) / total, 4), "box": box})
    labels = ", ".join(f"{d['label']} ({d['area']:.0%})" for d in data[:20]) or "nothing"
    return TaskOutput(text=f"Segments: {labels}. Masks drawn in {path.name}", image=path, data={"segments": data})


def segments_of(backend, info: ModelInfo, image, device: str) -> list[dict[str, Any]]:
    with backend.pipeline("image-segmentation", info, device) as pipe:
        return list(pipe(image))


def seg_map(backend, info: ModelInfo, image, device: str):
    """Flat colour label map (ControlNet's seg condition)."""
    return label_map(segments_of(backend, info, image, device), image.size)


def estimate_depth(backend, info: ModelInfo, image, device: str):
    """Relative depth (larger = nearer for MiDaS/DPT/Depth Anything) as an HxW float array."""
    import numpy as np

    with backend.pipeline("depth-estimation", info, device) as pipe:
        out = pipe(image)
    pred = out["predicted_depth"]
    arr = pred.float().cpu().numpy() if hasattr(pred, "cpu") else np.asarray(pred, dtype=np.float32)
    arr = np.squeeze(arr)
    if arr.shape != (image.size[1], image.size[0]):
        from PIL import Image

        arr = np.asarray(Image.fromarray(arr.astype(np.float32), mode="F").resize(image.size, Image.BICUBIC))
    return arr


def caption(backend, info: ModelInfo, image, device: str, prompt: str = "") -> TaskOutput:
    import torch

    with backend.model_and_processor("image-to-text", info, device, "AutoModelForImageTextToText", "processor") as (model, proc):
        inputs = proc(images=image, text=prompt or None, return_tensors="pt")
        inputs = {k: (v.to(device, model.dtype) if v.is_floating_point() else v.to(device)) for k, v in inputs.items()}
        with torch.inference_mode():
            out = model.generate(**inputs, max_new_tokens=min(backend.max_new_tokens, 60))
        text = proc.batch_decode(out, skip_special_tokens=True)[0].strip()
    return TaskOutput(text=text or "(no description produced)", data={"caption": text})


def answer_about_image(backend, info: ModelInfo, image, question: str, device: str) -> TaskOutput:
    """Classifier VQA models (ViLT) pick an answer label; generative ones (BLIP...) write one."""
    import torch

    auto = "AutoModelForVisualQuestionAnswering"
    with backend.model_and_processor("visual-question-answering", info, device, auto, "processor") as (model, proc):
        inputs = proc(images=image, text=question, return_tensors="pt", truncation=True)
        inputs = {k: (v.to(device, model.dtype) if v.is_floating_point() else v.to(device)) for k, v in inputs.items()}
        with torch.inference_mode():
            if model.can_generate():
                out = model.generate(**inputs, max_new_tokens=30)
                answer = proc.batch_decode(out, skip_special_tokens=True)[0].strip()
                if answer.lower().startswith(question.lower()):
                    answer = answer[len(question):].strip()
                return TaskOutput(text=answer or "(no answer)", data={"answer": answer})
            logits = model(**inputs).logits[0].float()
        probs = torch.sigmoid(logits) if logits.numel() > 1 else logits
        top = torch.topk(probs, k=min(5, probs.numel()))
        labels = model.config.id2label
        answers = [{"answer": labels.get(int(i), str(int(i))), "score": float(s)} for s, i in zip(top.values, top.indices)]
    return TaskOutput(text=answers[0]["answer"], data={"answers": answers})


def ocr_word_boxes(backend, image) -> list[tuple[str, list[int]]]:
    """Words and their boxes (0..1000 scale, as LayoutLM expects), read with the shipped RapidOCR
    (held in the shared model cache under the same key as the OCR expert)."""
    import numpy as np

    from .shipped import OCR_ID

    def load():
        from rapidocr_onnxruntime import RapidOCR

        return RapidOCR()

    with backend.cache.use(OCR_ID, load, 32 << 20, "ram") as engine:
        result, _ = engine(np.asarray(image)[:, :, ::-1].copy())
    w, h = image.size
    out = []
    for box, text, _score in result or []:
        xs = [p[0] for p in box]
        ys = [p[1] for p in box]
        x0, y0, x1, y1 = min(xs), min(ys), max(xs), max(ys)
        words = text.split()
        for i, word in enumerate(words):  # split the line's box evenly between its words
            wx0 = x0 + (x1 - x0) * i / len(words)
            wx1 = x0 + (x1 - x0) * (i + 1) / len(words)
            out.append((word, [int(1000 * wx0 / w), int(1000 * y0 / h), int(1000 * wx1 / w), int(1000 * y1 / h)]))
    return out


def answer_about_document(backend, info: ModelInfo, image, question: str, device: str) -> TaskOutput:
    """LayoutLM-style models read the words RapidOCR found; Donut-style models read pixels."""
    kwargs: dict[str, Any] = {}
    if info.architecture != "VisionEncoderDecoderModel":
        words = ocr_word_boxes(backend, image)
        if not words:
            return TaskOutput(text="(no text found in the document)", data={"answers": []})
        kwargs["word_boxes"] = words
    from .text_tasks import context_window

    with backend.pipeline("document-question-answering", info, device) as pipe:
        if pipe.tokenizer is not None:
            kwargs["max_seq_len"] = min(512, context_window(pipe.model, pipe.tokenizer))
        answers = pipe(image=image, question=question, top_k=3, **kwargs)
    answers = answers if isinstance(answers, list) else [answers]
    answers = [{"answer": a.get("answer", ""), "score": float(a.get("score") or 0.0)} for a in answers]
    best = answers[0]["answer"] if answers else ""
    return TaskOutput(text=best or "(no answer found in the document)", data={"answers": answers})


def estimate_pose(backend, info: ModelInfo, image, device: str) -> list[dict[str, Any]]:
    """Keypoints of the people in the image with a top-down pose model (VitPose), given the whole
    image as one person box (no person detector needed for the usual single-subject photo)."""
    import torch

    with backend.model_and_processor("openpose-control", info, device, "AutoModel", "image") as (model, proc):
        boxes = [[[0.0, 0.0, float(image.size[0]), float(image.size[1])]]]
        inputs = proc.image_processor(images=image, boxes=boxes, return_tensors="pt").to(device)
        with torch.inference_mode():
            out = model(**{k: v.to(model.dtype) if v.is_floating_point() else v for k, v in inputs.items()})
        results = proc.image_processor.post_process_pose_estimation(out, boxes=boxes)[0]
    people = []
    for person in results:
        pts = person["keypoints"].float().cpu().tolist()
        scores = person["scores"].float().cpu().tolist()
        people.append({"keypoints": [[x, y, s] for (x, y), s in zip(pts, scores)]})
    return people

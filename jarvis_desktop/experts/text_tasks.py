"""Text task types on transformers models: classification, entities, QA, generation, similarity.

Generative tasks (summarise, translate, rewrite, answer, chat) work with either a seq2seq model
(T5, BART, Marian...) or a causal LM, by asking in words what the task wants.
"""

from __future__ import annotations

from typing import Any

from .base import ExpertError, RunContext, TaskOutput
from .cached import need
from .local_cache import ModelInfo

_INSTRUCTIONS = {
    "summarization": "Summarize the following text in a few sentences.\n\n{text}",
    "translation": "Translate the following text into {target}. Reply with the translation only.\n\n{text}",
    "question-answering": "Answer the question using the passage.\n\nPassage: {context}\n\nQuestion: {text}",
    "text2text-generation": "{text}",
    "conversational": "{text}",
    "text-generation": "{text}",
}


def run(backend, task: str, info: ModelInfo, args: dict[str, Any], ctx: RunContext, device: str) -> TaskOutput:
    text = need(args, "text", task)
    if task == "text-classification":
        with backend.pipeline(task, info, device) as pipe:
            scores = pipe(text[:20_000], top_k=None, truncation=True)
        scores = sorted(scores, key=lambda s: -s["score"])
        best = scores[0]
        return TaskOutput(text=f"{best['label']} ({best['score']:.2f})",
                          data={"labels": [{"label": s["label"], "score": float(s["score"])} for s in scores]})
    if task == "token-classification":
        with backend.pipeline(task, info, device) as pipe:
            ents = pipe(text[:20_000], aggregation_strategy="simple")
        ents = [{"entity": e.get("entity_group", e.get("entity")), "word": e["word"], "score": float(e["score"]),
                 "start": e.get("start"), "end": e.get("end")} for e in ents]
        summary = "; ".join(f"{e['word']} ({e['entity']})" for e in ents) or "(no entities found)"
        return TaskOutput(text=summary, data={"entities": ents})
    if task == "sentence-similarity":
        from .shipped import similarity_output

        with backend.model_and_processor(task, info, device, "AutoModel") as (model, tok):
            return similarity_output(model, tok, args, device)
    if task == "question-answering" and info.architecture.endswith("ForQuestionAnswering"):
        with backend.model_and_processor(task, info, device, "AutoModelForQuestionAnswering") as (model, tok):
            return extractive_answer(model, tok, text, need(args, "context", task), device)
    return generate(backend, task, info, args, device)


def _prompt(task: str, info: ModelInfo, args: dict[str, Any]) -> str:
    text = str(args["text"])
    target = str(args.get("target_language") or "English")
    source = str(args.get("source_language") or "English")
    context = str(args.get("context") or "")
    if info.model_type == "t5":  # T5 was trained on task prefixes
        if task == "summarization":
            return "summarize: " + text
        if task == "translation":
            return f"translate {source} to {target}: {text}"
        if task == "question-answering":
            return f"question: {text} context: {context}"
    if info.model_type == "marian" or (task == "summarization" and info.model_type in ("bart", "pegasus", "led")):
        return text  # trained for exactly this job: no instruction
    if task == "question-answering" and not context:
        return text
    return _INSTRUCTIONS[task].format(text=text, target=target, context=context)


def generate(backend, task: str, info: ModelInfo, args: dict[str, Any], device: str) -> TaskOutput:
    import torch

    seq2seq = "text2text-generation" in info.tasks or info.model_type in ("marian",)
    auto = "AutoModelForSeq2SeqLM" if seq2seq else "AutoModelForCausalLM"
    prompt = _prompt(task, info, args)
    with backend.model_and_processor(task, info, device, auto) as (model, tok):
        window = context_window(model, tok)
        new_tokens = min(backend.max_new_tokens, window // 2) if not seq2seq else backend.max_new_tokens
        room = window if seq2seq else window - new_tokens
        chat = not seq2seq and bool(getattr(tok, "chat_template", None))
        if chat:
            enc = tok.apply_chat_template([{"role": "user", "content": prompt}], add_generation_prompt=True,
                                          return_tensors="pt", return_dict=True)
        else:
            enc = tok(prompt, return_tensors="pt")
        enc = {k: v[:, -room:].to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask")}  # keep the end
        pad = tok.pad_token_id if tok.pad_token_id is not None else tok.eos_token_id
        # a copy of a step ("two limericks about cats") has a seed: sampled, so each copy differs;
        # otherwise greedy, so the same request writes the same text
        seed = int(args.get("seed") or 0)
        sampling = {"do_sample": True, "top_p": 0.9, "temperature": 0.8} if seed else {"do_sample": False}
        if seed:
            torch.manual_seed(seed)
        with torch.inference_mode():
            out = model.generate(**enc, max_new_tokens=new_tokens, pad_token_id=pad, **sampling)
        ids = out[0] if seq2seq else out[0, enc["input_ids"].shape[1]:]
        reply = tok.decode(ids, skip_special_tokens=True).strip()
    return TaskOutput(text=reply or "(the model produced no text)", data={"generated_text": reply, "prompt": prompt})


def context_window(model, tok, default: int = 1024) -> int:
    """Tokens the model can attend to: its position embeddings, capped by the tokenizer's limit
    (tokenizers saved without one report a huge number)."""
    cfg = model.config
    sizes = [getattr(cfg, n, None) for n in ("max_position_embeddings", "n_positions", "max_sequence_length")]
    if hasattr(cfg, "get_text_config"):
        sizes.append(getattr(cfg.get_text_config(), "max_position_embeddings", None))
    sizes = [int(x) for x in sizes if isinstance(x, int) and x > 0]
    tok_max = getattr(tok, "model_max_length", None)
    if isinstance(tok_max, int) and 0 < tok_max < 1_000_000:
        sizes.append(tok_max)
    return min(sizes) if sizes else default


def extractive_answer(model, tok, question: str, context: str, device: str, max_answer_tokens: int = 30) -> TaskOutput:
    """The best span of ``context`` answering ``question`` (start <= end, within the passage)."""
    import torch

    enc = tok(question, context, truncation="only_second", max_length=context_window(model, tok),
              return_offsets_mapping=True, return_tensors="pt")
    offsets = enc.pop("offset_mapping")[0].tolist()
    seq_ids = enc.sequence_ids(0)
    with torch.inference_mode():
        out = model(**{k: v.to(device) for k, v in enc.items()})
    start = out.start_logits[0].float().cpu()
    end = out.end_logits[0].float().cpu()
    in_ctx = torch.tensor([s == 1 for s in seq_ids])
    if not in_ctx.any():
        raise ExpertError("question-answering: the passage is empty after tokenisation")
    neg = torch.finfo(start.dtype).min
    start = start.masked_fill(~in_ctx, neg)
    end = end.masked_fill(~in_ctx, neg)
    n = len(seq_ids)
    scores = start[:, None] + end[None, :]
    allowed = torch.ones(n, n, dtype=torch.bool).triu() & ~torch.ones(n, n, dtype=torch.bool).triu(max_answer_tokens)
    scores = scores.masked_fill(~allowed | ~in_ctx[:, None] | ~in_ctx[None, :], neg)
    flat = int(scores.argmax())
    s, e = divmod(flat, n)
    char_start, char_end = offsets[s][0], offsets[e][1]
    answer = context[char_start:char_end].strip()
    prob = float(torch.softmax(start, 0)[s] * torch.softmax(end, 0)[e])
    return TaskOutput(text=answer or "(no answer found in the passage)",
                      data={"answer": answer, "start": char_start, "end": char_end, "score": prob})

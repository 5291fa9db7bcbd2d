"""Where in a clause a step the model found was asked for: the word that speaks most for the step's
label and least for the other steps found in the same clause. The position orders steps found in
one clause ("transcribe > translate english > summary > read out": the translation before the
summary, though "out" leans to translation a little, as it does to speech) and bounds what each
step reads."""

from __future__ import annotations

import numpy as np

from .features import SHORTHAND, spelling, word_features
from .segment import Token
from .stepmodel import StepModel


def word_weights(model: StepModel, tokens: list[Token], j: int) -> np.ndarray:
    """Each token's weight for label ``j`` as the classifier reads the word: its form, lemma and
    word family ("s:transl"), and the pair of words it opens."""
    lemmas = [SHORTHAND.get(t.lower) or t.lemma for t in tokens]
    out = np.zeros(len(tokens))
    for k, (t, lemma) in enumerate(zip(tokens, lemmas)):
        keys = word_features(SHORTHAND.get(t.lower, t.lower), lemma)
        if k + 1 < len(tokens):
            keys.append(f"b:{spelling(lemma)}_{spelling(lemmas[k + 1])}")
        out[k] = sum(float(model.W[model.vocab[f], j]) for f in keys if f in model.vocab)
    return out


def evidence_position(model: StepModel, tokens: list[Token], j: int, rivals: list[int], default: int) -> int:
    """The start of the token that most tells label ``j`` from ``rivals`` (the other labels found
    in the clause), ``default`` when the clause has no tokens."""
    if not tokens:
        return default
    w = word_weights(model, tokens, j)
    if rivals:
        w = w - np.max([word_weights(model, tokens, k) for k in rivals], axis=0)
    return tokens[int(np.argmax(w))].start

"""spaCy's attribute ruler (tag to part of speech and morphology, and its exceptions), looked up by
each token's tag or word instead of trying every rule at every token.

Why: the shipped pipeline's ruler runs its 179 rules through spaCy's general matcher, which tries
each rule at each token: about 1.2 ms of a 47-word request's 7 ms in spaCy. Nearly every rule
names the token's tag or its word, so indexing the rules by those leaves a handful to try per
token. The rules, their order (a later rule wins) and the way attributes are set are the ruler's
own, read from the loaded pipeline; only how matches are found differs, and
``tests/test_english_attributes.py`` holds the two to the same tokens.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Callable

#: The token attributes the shipped ruler's patterns test, in the order a token is read as a tuple
_FIELDS = ("TAG", "LOWER", "DEP", "IS_SPACE")

Check = Callable[[tuple[str, str, str, bool]], bool]


@dataclass(frozen=True)
class _Rule:
    order: int  # the ruler's rule number: a later rule's attributes win
    checks: tuple[Check, ...]  # one per token of the pattern
    target: int  # which token of the match gets the attributes


def _check(spec: dict[str, Any]) -> Check:
    """One token of a pattern as a test of (tag, lower, dep, is_space)."""
    tests: list[Callable[[tuple[str, str, str, bool]], bool]] = []
    for key, want in spec.items():
        at = _FIELDS.index(key)
        if isinstance(want, dict):
            ((op, arg),) = want.items()
            if op == "IN":
                tests.append(lambda t, at=at, s=frozenset(arg): t[at] in s)
            elif op == "NOT_IN":
                tests.append(lambda t, at=at, s=frozenset(arg): t[at] not in s)
            elif op == "REGEX":
                tests.append(lambda t, at=at, r=re.compile(arg): bool(r.search(t[at])))
            else:
                raise ValueError(f"attribute pattern {op!r} is not handled")
        else:
            tests.append(lambda t, at=at, w=want: t[at] == w)
    return lambda t: all(test(t) for test in tests)


def _index_keys(spec: dict[str, Any]) -> tuple[int, list[Any]] | None:
    """Where a pattern's first token can be looked up: by its word, tag, dependency or being a
    space (the narrowest key first), or None (try it at every token)."""
    for key in ("LOWER", "TAG", "DEP", "IS_SPACE"):
        want = spec.get(key)
        if isinstance(want, (str, bool)):
            return _FIELDS.index(key), [want]
        if isinstance(want, dict) and set(want) == {"IN"}:
            return _FIELDS.index(key), list(want["IN"])
    return None


class IndexedAttributeRuler:
    """Sets the attributes spaCy's ``attribute_ruler`` sets, finding its matches by index."""

    def __init__(self, ruler: Any):
        from spacy.tokens._retokenize import set_token_attrs

        self._set = set_token_attrs
        self._attrs = list(ruler.attrs)
        self._by: list[dict[Any, list[_Rule]]] = [{} for _ in _FIELDS]
        self._anywhere: list[_Rule] = []
        for order, rule in enumerate(ruler.patterns):
            for pattern in rule["patterns"]:
                if any(set(spec) - set(_FIELDS) for spec in pattern):
                    raise ValueError(f"attribute pattern {pattern!r} tests what is not handled")
                index = rule["index"]
                entry = _Rule(order, tuple(_check(spec) for spec in pattern), index if index >= 0 else len(pattern) + index)
                keys = _index_keys(pattern[0])
                if keys is None:
                    self._anywhere.append(entry)
                else:
                    for value in keys[1]:
                        self._by[keys[0]].setdefault(value, []).append(entry)

    def __call__(self, doc: Any) -> Any:
        toks = [(t.tag_, t.lower_, t.dep_, t.is_space) for t in doc]
        found: list[tuple[int, int]] = []
        for start, tok in enumerate(toks):
            candidates = [rule for at, by in enumerate(self._by) for rule in by.get(tok[at], ())]
            for rule in candidates + self._anywhere:
                end = start + len(rule.checks)
                if end <= len(toks) and all(check(toks[start + k]) for k, check in enumerate(rule.checks)):
                    found.append((rule.order, start + rule.target))
        for order, i in sorted(found):
            self._set(doc[i], self._attrs[order])
        return doc


_FACTORY = "jarvis_indexed_attribute_ruler"


def use_indexed_ruler(nlp: Any) -> bool:
    """Put the indexed ruler in place of ``nlp``'s attribute ruler; False (spaCy's own ruler kept)
    when the pipeline has none or its rules test something this one does not handle."""
    from spacy.language import Language

    if "attribute_ruler" not in nlp.pipe_names:
        return False
    if not Language.has_factory(_FACTORY):
        Language.factory(_FACTORY, func=lambda nlp, name: IndexedAttributeRuler(nlp.get_pipe("attribute_ruler")))
    try:  # the ruler is built once, here; nothing is added when it cannot be
        nlp.add_pipe(_FACTORY, before="attribute_ruler")
    except (ValueError, ImportError):  # an unhandled pattern, or a spaCy without set_token_attrs
        return False
    nlp.remove_pipe("attribute_ruler")
    return True

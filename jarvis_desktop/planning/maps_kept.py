"""A control map asked for by what the new picture keeps of a photo, not by the map's name: "keep
exactly how her arms and legs are placed but make her a knight" (the pose), "same near-to-far
layout as garden.jpg, but a fairy garden" (the depth), "keep where the sky and the road sit, but
make it a desert" (the segments).

The step model reads such a request as a guided picture (a map and the generator it guides) from
how it is said; which map is a matter of what the kept words are like, which no closed list of
words covers. The model keeps, per map, the mean vector of the training requests that asked for
it (``stepmodel.map_centroids``): the nearest is the map. A request that names a map gets that
one (``detect.control_kind``); one with no photo to keep anything of, or where the model is not
sure of a guided picture, gets no map at all.
"""

from __future__ import annotations

import numpy as np

from .clause_vectors import DIMS
from .maps_named import MAP_ESTIMATES
from .step_labels import CONTROL, EDIT, GUIDED
from .step_words import KEEPING, asked_of_you
from .stepmodel import StepModel, request_vector


def kept_map(P: np.ndarray, m: StepModel, views: list, given: set[str], tokens: list) -> str | None:
    """For a request that names no map: the map a guided picture keeps of a picture given, where
    the model reads one (its guided label passes the bar), the words keep something of the photo's
    shape (``keeps_a_shape``; a picture "made from" a photo with nothing kept is a restyle of all
    of it, an edit: "make from it a painting in the style of Van Gogh") and no question is asked of
    the photo ("is the statue made of the same marble as ...?"). Otherwise None, and the map and
    guided readings leave ``P`` (in place): with no picture to work from, what the model read as a
    guided picture is a picture made from words ("make a photo of a street at night"); with one
    given, it may be an edit of it ("make this photo wintry"), which the model reads apart."""
    labels = m.labels
    if GUIDED in labels and "image" in given and len(views) and P[:, labels.index(GUIDED)].max() >= m.threshold and any(
            keeps_a_shape(tokens, k) for k in range(len(tokens))) and (asked_of_you(tokens) or not any(t.text == "?" for t in tokens)):
        kind = m.nearest_map(v) if (v := request_vector([(v.features, v.dense) for v in views], DIMS)) is not None else None
        if kind:
            # the map is the guided picture's, not one to look at; the picture asked for where the
            # guided one is, is that one, not an edit of the photo besides ("keep every bump of the
            # surface and make it look cast in bronze")
            for label in (CONTROL, MAP_ESTIMATES.get(kind)):
                if label in labels:
                    P[:, labels.index(label)] = 0.0
            if EDIT in labels:
                P[int(P[:, labels.index(GUIDED)].argmax()), labels.index(EDIT)] = 0.0
            return kind
    if GUIDED in labels and "text-to-image" in labels and "image" not in given:
        g, t = labels.index(GUIDED), labels.index("text-to-image")
        P[:, t] = 1.0 - (1.0 - P[:, t]) * (1.0 - P[:, g])
    for label in (CONTROL, GUIDED):
        if label in labels:
            P[:, labels.index(label)] = 0.0
    return None


#: What a control map keeps of a photo: how and where things are, their shape, never their look
#: ("keep the same kitchen but paint the cabinets navy", "same style as Monet", "keep my face" are
#: edits). Said by a word of place or manner ("exactly how she is standing", "where the sky is") or
#: a noun of shape, position or surface
_SHAPES = {"pose", "position", "posture", "stance", "body", "arm", "leg", "hand", "gesture", "shape", "form", "outline",
           "contour", "silhouette", "line", "edge", "layout", "arrangement", "composition", "structure", "geometry",
           "perspective", "proportion", "surface", "bump", "curve", "angle", "groove", "fold", "depth", "distance", "way",
           "place", "spot", "region", "zone", "area", "patch", "straight"}


def keeps_a_shape(tokens: list, k: int) -> bool:
    """The word at ``k`` says something of the photo stays (``KEEPING``), and what stays is where
    or how things are, or their shape (``_SHAPES``), within the words after it up to a break."""
    t = tokens[k]
    if not (t.lemma in KEEPING or t.lower in KEEPING):
        return False
    for u in tokens[k + 1:k + 7]:
        if u.lower in ("how", "where") or u.lemma in _SHAPES or u.lower in _SHAPES:
            return True
        if u.pos == "PUNCT" or u.lower == "but":
            break
    return False

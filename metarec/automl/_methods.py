"""The ways ``metarec run``'s answer is made of the evaluated algorithms, by name.

The one list the answer's policy (:class:`~metarec.automl._answer.AnswerPolicy`), the
estimators' ``ensemble_method`` and the command line's ``--ensemble-method`` read, named here
apart from the policy so that the command line reads it without loading numpy or
scikit-learn.
"""

from __future__ import annotations

__all__ = ["ENSEMBLE_METHODS", "ANSWER_KINDS"]

#: How the answer may be made of the evaluated algorithms, the default first: an
#: equal-weight average of the best ones, or ensemble selection over their out-of-fold
#: predictions (see :mod:`metarec.automl._answer`).
ENSEMBLE_METHODS = ("average", "selection")
#: What each kind of answer a search hands back is (``"best"``: one algorithm alone, whatever
#: the method), as the model's sidecar describes it.
ANSWER_KINDS = {
    "best": "the best algorithm alone, refitted on every row",
    "average": "an equal-weight average of the best algorithms, each refitted on every row",
    "selection": "ensemble selection over the out-of-fold predictions (Caruana et al. 2004), "
    "each member refitted on every row and weighted by its count",
}

"""Greedy ensemble selection over out-of-fold predictions (Caruana et al. 2004).

Every algorithm a search evaluates leaves its out-of-fold predictions on the user's data:
for each row, what the model fitted on the other folds predicted (class probabilities for
classification, values for regression).  Ensemble selection builds the answer from them:

1. **sorted initialisation**: the ensemble starts with the best single model (by the
   metric on its out-of-fold predictions);
2. **greedy steps with replacement**: for a fixed number of rounds, the model whose
   addition gives the best score of the averaged predictions is added (a model may be
   added again: its weight grows); among additions that score alike, the best single
   model's (adding a constant predictor leaves an AUC as it is: it must not win the tie);
3. after the last round each member's **weight is its count** over the total; should the
   ensemble score below the best single model on the same predictions (the greedy steps
   can lose a little when every addition hurts), the answer is that model alone, so that
   selection never does worse than choosing one model on the evidence it has.

Averaging probabilities (or values) rather than votes keeps the ensemble's predictions a
proper model of the same kind; a classifier without probabilities (ridge, support vector
machines, SGD with hinge loss) takes part with its vote (probability 1 for the class it
predicts), as it does in the fitted answer.

References
----------
.. [1] Caruana, R., Niculescu-Mizil, A., Crew, G., Ksikes, A. (2004). Ensemble selection
   from libraries of models. ICML 2004.
.. [2] Caruana, R., Munson, A., Niculescu-Mizil, A. (2006). Getting the most out of
   ensemble selection. ICDM 2006 (sorted initialisation, selection with replacement).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from metarec.exceptions import InvalidInputError

__all__ = ["Selection", "ensemble_selection", "ensemble_score", "ROUNDS"]

#: Greedy rounds after the initial model (auto-sklearn's default is 50; AutoGluon's 25).
ROUNDS = 50


@dataclass(frozen=True)
class Selection:
    """The outcome of :func:`ensemble_selection`.

    Parameters
    ----------
    counts : ndarray of int
        How many times each candidate was chosen (0: not a member).
    score : float
        The metric of the selected ensemble's averaged out-of-fold predictions.
    best_single : float
        The metric of the best candidate alone (the initialisation).
    trajectory : tuple of float
        The ensemble's score after the initialisation and after each round.
    """

    counts: np.ndarray
    score: float
    best_single: float
    trajectory: tuple[float, ...]

    @property
    def weights(self) -> np.ndarray:
        """Each candidate's weight: its count over the total."""
        return self.counts / self.counts.sum()


def ensemble_score(y: np.ndarray, prediction: np.ndarray, metric: str) -> float:
    """The metric (higher is better) of an averaged prediction.

    Parameters
    ----------
    y : ndarray of shape (n_rows,)
        Class codes ``0..K-1`` (classification) or values (regression).
    prediction : ndarray of shape (n_rows, K) or (n_rows,)
        Averaged class probabilities, or averaged values.
    metric : {"accuracy", "balanced_accuracy", "roc_auc", "r2", "success"}
        ``accuracy``: share of rows whose most probable class (the smaller code on ties) is
        the true one; ``balanced_accuracy``: the mean of the classes' recalls;
        ``roc_auc``: the binary AUC of the positive class, or the macro one-vs-rest AUC;
        ``r2``: the coefficient of determination; ``success``: R² clipped at 0 (metarec's
        success rate of regressors).  Balanced accuracy and R² are
        :func:`metarec.evaluation.balanced_accuracy_score` and
        :func:`metarec.evaluation.r2_score` (a constant target predicted exactly: 1).

    Returns
    -------
    float
    """
    from metarec.evaluation import balanced_accuracy_score, r2_score

    if prediction.ndim == 1:
        r2 = r2_score(y, prediction)
        return float(max(r2, 0.0) if metric == "success" else r2)
    if metric == "roc_auc":
        from sklearn.metrics import roc_auc_score

        if prediction.shape[1] == 2:
            return float(roc_auc_score(y, prediction[:, 1]))
        labels = np.arange(prediction.shape[1])
        onehot = y[:, None] == labels[None, :]
        present = onehot.any(axis=0) & (~onehot).any(axis=0)
        return float(roc_auc_score(onehot[:, present], prediction[:, present], average="macro"))
    predicted = np.argmax(prediction, axis=1)
    if metric == "balanced_accuracy":
        return balanced_accuracy_score(y, predicted)
    return float(np.mean(predicted == y))


def ensemble_selection(
    predictions: Sequence[np.ndarray],
    y: np.ndarray,
    *,
    metric: str = "accuracy",
    rounds: int = ROUNDS,
    max_members: int | None = None,
) -> Selection:
    """Select an ensemble of the candidates by their out-of-fold predictions.

    Parameters
    ----------
    predictions : sequence of ndarray
        Each candidate's out-of-fold predictions on the same rows, in the candidates' order
        of preference (it breaks ties): class probabilities of shape ``(n_rows, K)`` or
        values of shape ``(n_rows,)``.
    y : ndarray of shape (n_rows,)
        Class codes ``0..K-1`` or values.
    metric : str, default="accuracy"
        What the selection maximises (see :func:`ensemble_score`).
    rounds : int, default=50
        Greedy rounds after the initial model (:data:`ROUNDS`).
    max_members : int, optional
        At most this many distinct members: once there are that many, only they are added
        again.

    Returns
    -------
    Selection

    Raises
    ------
    InvalidInputError
        No candidates, or predictions of other shapes.
    """
    if not len(predictions):
        raise InvalidInputError("ensemble selection needs at least one candidate")
    stacked = np.stack([np.asarray(p, dtype=float) for p in predictions])
    if stacked.shape[1] != len(y):
        raise InvalidInputError(
            f"predictions of {stacked.shape[1]} rows for a target of {len(y)} rows"
        )
    y = np.asarray(y)
    singles = np.array([ensemble_score(y, p, metric) for p in stacked])
    first = int(np.argmax(singles))  # the first of the best on ties
    counts = np.zeros(len(stacked), dtype=int)
    counts[first] = 1
    total = stacked[first].copy()
    trajectory = [float(singles[first])]
    for _ in range(int(rounds)):
        allowed = np.arange(len(stacked))
        if max_members is not None and np.count_nonzero(counts) >= max_members:
            allowed = np.flatnonzero(counts)
        n = counts.sum() + 1
        scores = np.array([ensemble_score(y, (total + stacked[m]) / n, metric) for m in allowed])
        # ties (AUC does not change when a constant model is added) go to the best single
        # model among them, then to the first candidate
        tied = allowed[scores >= scores.max() - 1e-12]
        pick = int(tied[np.argmax(singles[tied])])
        counts[pick] += 1
        total += stacked[pick]
        trajectory.append(float(scores.max()))
    if trajectory[-1] < trajectory[0]:  # every step hurt: the best single model alone
        counts = np.zeros(len(stacked), dtype=int)
        counts[first] = 1
    score = max(trajectory[-1], trajectory[0])
    return Selection(counts, score, float(singles[first]), tuple(trajectory))


def out_of_fold(results, n_rows: int, n_classes: int) -> tuple[np.ndarray, dict]:
    """Each algorithm's out-of-fold predictions, on the rows every one of them predicted.

    Parameters
    ----------
    results : iterable of JobResult
        The jobs of a search (one per algorithm, possibly several per algorithm when a job
        was resumed); only folds with status ``ok`` count.
    n_rows : int
        Rows of the data.
    n_classes : int
        Classes (0: regression).

    Returns
    -------
    rows : ndarray of int
        The rows predicted (every row under cross-validation; a protocol that tests some
        rows more than once averages their predictions).
    predictions : dict of str to ndarray
        Per algorithm that predicted every one of ``rows``, class probabilities
        ``(len(rows), n_classes)`` (a vote of 1 for the predicted class where the model
        gives none) or values ``(len(rows),)``.
    """
    width = max(int(n_classes), 1)
    sums: dict[str, np.ndarray] = {}
    counts: dict[str, np.ndarray] = {}
    for result in results:
        total = sums.setdefault(result.algorithm, np.zeros((n_rows, width)))
        count = counts.setdefault(result.algorithm, np.zeros(n_rows))
        for fold in result.folds:
            if fold.status != "ok" or fold.test_index is None or fold.y_pred is None:
                continue
            index = np.asarray(fold.test_index)
            if n_classes and fold.proba is not None:
                value = np.asarray(fold.proba, dtype=float)
            elif n_classes:
                value = np.eye(width)[np.asarray(fold.y_pred).astype(int)]
            else:
                value = np.asarray(fold.y_pred, dtype=float)[:, None]
            np.add.at(total, index, value)
            np.add.at(count, index, 1.0)
    if not sums:
        return np.zeros(0, dtype=int), {}
    # the rows of the fullest coverage; an algorithm that misses some (folds of it reused
    # from the knowledge base without their predictions) is left out rather than shrink them
    covers = {name: c > 0 for name, c in counts.items()}
    widest = max(covers.values(), key=np.count_nonzero)
    complete = [name for name, cover in covers.items() if cover[widest].all()]
    rows = np.flatnonzero(widest)
    predictions = {}
    for name in complete:
        total = sums[name]
        mean = total[rows] / counts[name][rows][:, None]
        predictions[name] = mean if n_classes else mean[:, 0]
    return rows, predictions

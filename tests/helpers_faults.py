"""Estimators that fail on purpose, for the runner's fault tests (named in configurations as
``helpers_faults:FailingClassifier``; worker processes import them from the tests folder)."""

import os
import signal

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin


class _Majority(ClassifierMixin, BaseEstimator):
    def __init__(self, random_state=None):
        self.random_state = random_state

    def _fit(self, X, y):
        self.classes_, counts = np.unique(y, return_counts=True)
        self.majority_ = self.classes_[np.argmax(counts)]
        return self

    def predict(self, X):
        return np.full(len(X), self.majority_)


class FailingClassifier(_Majority):
    """Raises in every fit."""

    def fit(self, X, y):
        raise RuntimeError("this estimator always fails")


class KillingClassifier(_Majority):
    """Kills its own process with SIGKILL in ``fit`` when it runs in a worker process (as the
    out-of-memory killer would); in the main process it is a majority-class model."""

    def fit(self, X, y):
        import multiprocessing

        if multiprocessing.parent_process() is not None:
            os.kill(os.getpid(), signal.SIGKILL)
        return self._fit(X, y)

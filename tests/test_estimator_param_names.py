"""The parameter names treelab's learners give scikit-learn (get_params, set_params, clone),
read once per class, against the constructors' own signatures."""

import inspect

import pytest
from sklearn.base import clone

import treelab
from treelab.estimators._base import TreeEnsembleClassifier


def _signature_names(cls: type) -> list[str]:
    """The constructor's keyword parameters, sorted: what scikit-learn's rule reads."""
    params = inspect.signature(cls.__init__).parameters.values()
    return sorted(p.name for p in params if p.name != "self" and p.kind != p.VAR_KEYWORD)


LEARNERS = [getattr(treelab, name) for name in treelab.__all__
            if isinstance(getattr(treelab, name), type)
            and issubclass(getattr(treelab, name), TreeEnsembleClassifier)]


@pytest.mark.parametrize("cls", LEARNERS, ids=lambda c: c.__name__)
def test_param_names_are_the_constructor_s(cls: type) -> None:
    assert cls._get_param_names() == _signature_names(cls)
    assert cls._get_param_names() == _signature_names(cls)  # the kept answer, read again
    model = cls()
    assert sorted(model.get_params(deep=False)) == _signature_names(cls)
    assert clone(model).get_params(deep=False) == model.get_params(deep=False)


def test_a_subclass_reads_its_own_constructor() -> None:
    base = treelab.VRTrees
    base._get_param_names()  # the parent's names kept first

    class Narrow(base):
        def __init__(self, alpha=0.5, n_estimators=10, extra=3):
            super().__init__(alpha=alpha, n_estimators=n_estimators)
            self.extra = extra

    assert Narrow._get_param_names() == ["alpha", "extra", "n_estimators"]
    assert base._get_param_names() == _signature_names(base)
    names = Narrow._get_param_names()
    names.append("changed by a caller")  # a caller's list is its own
    assert Narrow._get_param_names() == ["alpha", "extra", "n_estimators"]

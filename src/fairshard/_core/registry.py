"""The one answer to "is this a fairshard sampler, and which one is called X".

Every public sampler family (index, batch and stream) derives from
:class:`Registered`; defining the class registers it under its ``kind``, the
name its states carry. The diagnostics find families here instead of
importing the package top (which would make a lower layer import a higher
one), and ``is_fairshard`` is the single test the simulator, the
integrations and the evaluation helpers use.
"""

from __future__ import annotations

from typing import Any, ClassVar

__all__ = ["Registered", "defined_in", "families", "is_fairshard", "lookup", "set_public_path"]

_FAMILIES: dict[str, type[Registered]] = {}


class Registered:
    """Mixin: a class defining ``kind`` registers itself under that name.

    Abstract bases pass ``register=False`` in their class statement.
    """

    #: Name stored in states; a state loads only into the same kind.
    kind: ClassVar[str] = "Registered"

    def __init_subclass__(cls, register: bool = True, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if register and "kind" in cls.__dict__:
            _FAMILIES[cls.kind] = cls


def lookup(kind: str) -> type[Registered] | None:
    """The registered class named ``kind``, or ``None``."""
    return _FAMILIES.get(kind)


def families() -> dict[str, type[Registered]]:
    """Every registered family by name (a copy, sorted by name)."""
    return dict(sorted(_FAMILIES.items()))


def is_fairshard(obj: Any) -> bool:
    """Whether ``obj`` is a fairshard sampler or stream (an instance or a class)."""
    cls = obj if isinstance(obj, type) else type(obj)
    return issubclass(cls, Registered)


def set_public_path(obj: Any, module: str) -> None:
    """Give a public class or function ``module`` as its ``__module__`` (reprs, pickles, docs).

    The defining module is kept for :func:`defined_in`.
    """
    if isinstance(obj, type) and "_fairshard_defined_in" not in obj.__dict__:
        obj._fairshard_defined_in = obj.__module__  # type: ignore[attr-defined]
    obj.__module__ = module


def defined_in(cls: type) -> str:
    """The module that defines ``cls``: the name the configurations in states record.

    A public class's ``__module__`` is its public path (``fairshard``); states
    saved before that named the defining module, so a state's configuration
    keeps naming it (a user's subclass names its own module).
    """
    return str(cls.__dict__.get("_fairshard_defined_in", cls.__module__))

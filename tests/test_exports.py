"""The public surface: an explicit, sorted __all__ whose names all resolve."""

import fairshard


def test_all_is_sorted_and_unique() -> None:
    assert list(fairshard.__all__) == sorted(set(fairshard.__all__))


def test_every_exported_name_exists_and_is_documented() -> None:
    for name in fairshard.__all__:
        obj = getattr(fairshard, name)
        assert obj.__doc__, f"fairshard.{name} has no docstring"


def test_nothing_public_is_left_out() -> None:
    public = {n for n in vars(fairshard) if not n.startswith("_") and n not in {"annotations"}}
    modules = {n for n in public if type(getattr(fairshard, n)).__name__ == "module"}
    assert public - modules - set(fairshard.__all__) == set()

"""Trainers by name: the star import puts every trainer, OldTrainer too, in globals()."""

from trainer import *  # noqa: F403


def trainer_class(name="DetectionTrainer"):
    return globals()[name]


__all__ = ["trainer_class"]

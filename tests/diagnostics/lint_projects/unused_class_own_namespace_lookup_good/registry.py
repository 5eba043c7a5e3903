"""Trainers by name: globals() here holds the trainer this module imports, not OldTrainer."""

from trainer import DetectionTrainer


def trainer_class(name="DetectionTrainer"):
    return globals()[name]


__all__ = ["DetectionTrainer", "trainer_class"]

from .imprinting import *  # noqa: F403
from .trainer import Trainer


def get_method(model, optimizer, name="FT"):
    if name == "WI":
        return WeightImprinting(model, optimizer)  # noqa: F405
    return Trainer(model, optimizer)

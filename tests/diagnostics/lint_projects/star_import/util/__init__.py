from .engine import evaluate, train_one_epoch

__all__ = ["evaluate", "train_one_epoch"]

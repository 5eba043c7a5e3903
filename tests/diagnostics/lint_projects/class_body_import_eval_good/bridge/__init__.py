"""The model's API: its methods are functions of other modules imported into the class."""


class Bridge:
    def __init__(self, model):
        self.model = model

    from .evaluate import evaluate

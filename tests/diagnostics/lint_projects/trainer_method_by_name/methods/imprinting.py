from .trainer import Trainer


class WeightImprinting(Trainer):
    """Imprints the new classes' weights before training as its base does."""

    def imprint(self, features):
        self.model.weight.data[-features.shape[0] :] = features

class Trainer:
    def __init__(self, model, epochs):
        self.model = model
        self.epochs = epochs

    def fit(self, dataloaders):
        for epoch in range(self.epochs):
            self._train(dataloaders["train"])
            self._valid(dataloaders["valid"])

    def _train(self, loader):
        for batch in loader:
            self.model(batch)

    def _valid(self, loader):
        for batch in loader:
            self.model(batch)

# Keeps only an evaluation loader and walks it every epoch: its order does not matter.
class Reporter:
    def __init__(self, model, train_loader, val_loader):
        self.model = model
        self.val_loader = val_loader

    def run(self, epochs):
        for _ in range(epochs):
            for batch in self.val_loader:
                self.model(batch)

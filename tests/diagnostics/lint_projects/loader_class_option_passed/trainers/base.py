class Trainer:
    def __init__(self, model, train_loader, epochs):
        self.model = model
        self.train_loader = train_loader
        self.epochs = epochs

    def train(self):
        for epoch in range(self.epochs):
            self._train_epoch(epoch)

    def _train_epoch(self, epoch):
        for images, masks in self.train_loader:
            self.model(images, masks).backward()

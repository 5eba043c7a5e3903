class Trainer:
    """The method's trainer: its train() gives the loader's sampler each epoch."""

    def __init__(self, model, optimizer):
        self.model, self.optimizer = model, optimizer

    def train(self, cur_epoch, train_loader):
        train_loader.sampler.set_epoch(cur_epoch)
        for images, labels in train_loader:
            self.model(images).sum().backward()
            self.optimizer.step()

"""The trainer module the script hands its loader to."""


class Trainer:
    def __init__(self, model):
        self.model = model

    def train(self, dataloader, epochs):
        for _epoch in range(epochs):  # expect: FS101
            for batch in dataloader:
                self.model(batch).sum().backward()

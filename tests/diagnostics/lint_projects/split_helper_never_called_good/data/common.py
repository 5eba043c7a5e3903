import torch


class Recordings:
    """Holds the recordings as one tensor; its split method is never called in the tree."""

    def __init__(self, data):
        self.data = data

    def get_data(self):
        return self.data

    def split(self, train_size=0.8):
        data = self.data[torch.randperm(self.data.shape[0])]
        n_train = int(train_size * data.shape[0])
        train_part = data[:n_train]
        test_part = data[n_train:]
        return train_part, test_part

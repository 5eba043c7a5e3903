import torch


class ProfileSet(torch.utils.data.Dataset):
    def __init__(self, paths, split):
        self.items = [f"{p}/{split}" for p in paths]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]

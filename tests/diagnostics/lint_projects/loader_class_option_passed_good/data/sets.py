import torch


class SegmentationSet(torch.utils.data.Dataset):
    def __init__(self, root, split):
        self.items = sorted(f"{root}/{split}/{i}" for i in range(100))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]

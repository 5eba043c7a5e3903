# The dataset module tries a loader out when run on its own, in one process.
from torch.utils.data import DataLoader, Dataset


class SlideDataset(Dataset):
    def __init__(self, items):
        self.items = items

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


if __name__ == "__main__":
    loader = DataLoader(SlideDataset(list(range(10))), batch_size=2, shuffle=True)
    print(next(iter(loader)))
    for batch in DataLoader(SlideDataset(list(range(4))), batch_size=2, shuffle=True):
        print(batch)

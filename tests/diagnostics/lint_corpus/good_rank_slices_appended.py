# Each rank builds its datasets from its own slice of every simulation
# (sims[k * rank:k * (rank + 1)]), gathered in a list: shuffling reorders a share.
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset


class Sims(Dataset):
    def __init__(self, sims, steps):
        self.sims, self.steps = sims, steps

    def __len__(self):
        return len(self.sims)

    def __getitem__(self, i):
        return self.sims[i]


def load_train_objs(sims_vec, rank, world_size, steps):
    dataset_len = len(sims_vec["a"]) // world_size
    start_ind = dataset_len * rank
    end_ind = dataset_len * (rank + 1)
    datasets = []
    for an in sims_vec:
        datasets.append(Sims(sims_vec[an][start_ind:end_ind], steps))
    train_set = torch.utils.data.ConcatDataset(datasets)
    return DataLoader(train_set, batch_size=8, shuffle=True)


def main(rank, world_size, sims_vec):
    dist.init_process_group("gloo", rank=rank, world_size=world_size)
    loader = load_train_objs(sims_vec, rank, world_size, 4)
    for batch in loader:
        print(batch)


if __name__ == "__main__":
    mp.spawn(main, args=(2, {"a": list(range(64))}), nprocs=2)

# One sampler per split kept in a dict: the key says which is which. The "dev"
# sampler is unshuffled on purpose (an evaluation loader), and its losses stay
# on each rank (nothing combines them), so neither FS108 nor FS109 applies.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def main(args, model, optimizer, dataset):
    dist.init_process_group("nccl")
    sampler = {"train": None, "dev": None}
    sampler["train"] = DistributedSampler(dataset["train"], shuffle=True)
    sampler["dev"] = DistributedSampler(dataset["dev"], shuffle=False)
    loaders = {
        "train": DataLoader(dataset["train"], sampler=sampler["train"], batch_size=8),
        "dev": DataLoader(dataset["dev"], sampler=sampler["dev"], batch_size=8),
    }
    for epoch in range(args.epochs):
        sampler["train"].set_epoch(epoch)
        for x, y in loaders["train"]:
            optimizer.zero_grad()
            model(x, y).backward()
            optimizer.step()
        losses = [model(x, y).item() for x, y in loaders["dev"]]
        print(sum(losses) / len(losses))

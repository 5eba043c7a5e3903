# The seed entry itself reads the rank, or the whole dict (or an entry under a
# computed key) does: the sampler's seed differs between ranks.
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, dataset, seed, local_rank):
        dist.init_process_group("nccl")
        self.config = {"cmd": {"seed": seed + local_rank, "print_every": 10}}
        self.dataset = dataset

    def load(self):
        sampler = DistributedSampler(self.dataset, seed=self.config["cmd"]["seed"])  # expect: FS104
        return DataLoader(self.dataset, sampler=sampler, batch_size=8)


def build(dataset, args, key):
    options = {"seed": args.seed}
    options["seed"] = args.seed + dist.get_rank()
    first = DistributedSampler(dataset, seed=options["seed"])  # expect: FS104
    settings = {"seed": args.seed}
    settings[key] = dist.get_rank()
    second = DistributedSampler(dataset, seed=settings["seed"])  # expect: FS104
    got = DistributedSampler(dataset, seed=options.get("seed"))  # expect: FS104
    nested = {"run": {"seed": args.seed, "shard": dist.get_rank()}}
    third = DistributedSampler(dataset, seed=nested["run"])  # expect: FS104
    return first, second, third, got

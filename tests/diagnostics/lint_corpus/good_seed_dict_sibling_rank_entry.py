# A config dict holds a rank-dependent entry (a run stamp built on the local
# device) beside the seed: the seed entry is the same on every rank.
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def update_config(config):
    config.setdefault("optim", {})
    return config


class Trainer:
    def __init__(self, dataset, seed, local_rank, run_dir):
        dist.init_process_group("nccl")
        self.device = torch.device(f"cuda:{local_rank}")
        self.timestamp_id = self._stamp(self.device)
        self.config = {
            "trainer": "energy",
            "cmd": {
                "seed": seed,
                "timestamp_id": self.timestamp_id,
                "checkpoint_dir": run_dir + self.timestamp_id,
            },
        }
        self.config["cmd"]["device_tag"] = str(local_rank)
        self.config = update_config(self.config)
        self.dataset = dataset

    def _stamp(self, device):
        return str(device)

    def load(self):
        sampler = DistributedSampler(self.dataset, seed=self.config["cmd"]["seed"])
        return DataLoader(self.dataset, sampler=sampler, batch_size=8)

    def load_again(self):
        seed = self.config["cmd"].get("seed", 0)
        return DistributedSampler(self.dataset, seed=seed)


def build(dataset, args):
    options = dict(seed=args.seed, rank=dist.get_rank())
    sampler = DistributedSampler(dataset, seed=options["seed"])
    settings = {}
    settings["seed"] = args.seed
    settings["shard"] = dist.get_rank()
    other = DistributedSampler(dataset, seed=settings["seed"])
    return sampler, other

# The same trainer, whose epoch loop passes the epoch to a pass that takes none: Python
# raises TypeError at the first pass, so no epoch repeats an order.
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler


class Trainer:
    def __init__(self, model, dataset, gpu_id):
        self.gpu_id = gpu_id
        self.model = DDP(model.to(gpu_id), device_ids=[gpu_id])
        self.train_data = DataLoader(
            dataset, batch_size=8, sampler=DistributedSampler(dataset, shuffle=True)
        )
        self.optimizer = torch.optim.AdamW(self.model.parameters())

    def _run_epoch(self):
        for batch in self.train_data:
            loss = self.model(batch.to(self.gpu_id)).sum()
            loss.backward()
            self.optimizer.step()
        return len(self.train_data)

    def train(self, max_epochs):
        for epoch in range(max_epochs):
            self._run_epoch(epoch)


def main():
    dist.init_process_group("nccl")
    rank = dist.get_rank()
    Trainer(torch.nn.Linear(4, 2), torch.randn(64, 4), rank).train(10)


if __name__ == "__main__":
    main()

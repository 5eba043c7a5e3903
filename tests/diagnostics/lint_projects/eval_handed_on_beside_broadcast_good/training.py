import torch
import torch.distributed as dist
from tqdm import tqdm


class Trainer:
    """Trains and validates; each rank keeps the validation loss of its own share."""

    def __init__(self, model, train_loader, valid_loader, optimizer):
        self.model, self.optimizer = model, optimizer
        self.train_loader, self.valid_loader = train_loader, valid_loader

    def load_checkpoint(self, path):
        checkpoint = torch.load(path)
        self.model.load_state_dict(checkpoint["model"])
        return checkpoint

    def evaluate(self):
        self.model.eval()
        total, count = 0.0, 0
        with torch.no_grad():
            progress = tqdm(self.valid_loader, desc="valid")
            for src, tgt in progress:
                total += self.model(src, tgt).item()
                count += 1
        return total / max(count, 1)

    def train(self, start_epoch, epochs):
        for epoch in range(start_epoch, epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for src, tgt in self.train_loader:
                self.optimizer.zero_grad()
                self.model(src, tgt).backward()
                self.optimizer.step()
            print(f"rank {dist.get_rank()} epoch {epoch} valid loss {self.evaluate():.3f}")
            dist.barrier()

import torch
import torch.distributed as dist
from tqdm import tqdm

from signs.data import build_val_loader


class Trainer:
    def __init__(self, model, optimizer, train_loader, val_set, epochs):
        self.model, self.optimizer, self.epochs = model, optimizer, epochs
        self.train_loader = train_loader
        self.val_loader = build_val_loader(val_set, 16)
        self.rank = dist.get_rank()

    def evaluate(self):
        losses = []
        pbar = tqdm(self.val_loader)  # iterated under the progress bar's name
        with torch.no_grad():
            for batch in pbar:
                losses.append(compute_psnr(self.model(batch).mean().item()))
        return {"loss": sum(losses) / max(len(losses), 1)}

    def train(self):
        best = None
        for epoch in range(self.epochs):
            self.train_loader.sampler.set_epoch(epoch)
            for batch in self.train_loader:
                self.optimizer.zero_grad()
                self.model(batch).mean().backward()
                self.optimizer.step()
            metrics = self.evaluate()
            if self.rank == 0:
                print(epoch, metrics)
                if best is None or metrics["loss"] < best:
                    best = metrics["loss"]
                    torch.save(self.model.state_dict(), "best_model.pt")


def compute_psnr(mse):
    """This rank's score of the values it is given (no metric object, no sync)."""
    return -10 * torch.log10(torch.tensor(mse)).item()

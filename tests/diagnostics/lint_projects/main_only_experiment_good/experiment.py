# A module whose class the distributed runner imports, and whose own `main` is a
# single-process experiment that only `python experiment.py` runs: its shuffling
# loader is never built on the runner's path.
import torch
from torch.utils.data import DataLoader


class JointSpar:
    def __init__(self, model):
        self.model = model

    def step(self, grads):
        for grad in grads:
            grad.mul_(torch.rand_like(grad) < 0.1)


def main(dataset, model):
    loader = DataLoader(dataset, batch_size=64, shuffle=True)
    spar = JointSpar(model)
    for epoch in range(5):
        for batch in loader:
            spar.step(model(batch))


if __name__ == "__main__":
    main(None, None)

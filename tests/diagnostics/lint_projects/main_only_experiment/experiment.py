# The same module, and the distributed runner calls its `main` too: every rank
# reads the whole dataset through the unsharded shuffling loader.
import torch
from torch.utils.data import DataLoader


class JointSpar:
    def __init__(self, model):
        self.model = model

    def step(self, grads):
        for grad in grads:
            grad.mul_(torch.rand_like(grad) < 0.1)


def main(dataset, model):
    loader = DataLoader(dataset, batch_size=64, shuffle=True)  # expect: FS103
    spar = JointSpar(model)
    for epoch in range(5):
        for batch in loader:
            spar.step(model(batch))


if __name__ == "__main__":
    main(None, None)

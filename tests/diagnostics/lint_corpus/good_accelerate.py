from accelerate import Accelerator
from torch.utils.data import DataLoader


def train(model, dataset, optimizer, epochs):
    accelerator = Accelerator()
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(epochs):
        for batch in loader:
            optimizer.zero_grad()
            accelerator.backward(model(batch).sum())
            optimizer.step()

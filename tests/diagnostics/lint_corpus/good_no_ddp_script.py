import torch
from torch.utils.data import DataLoader


def train(model, dataset, epochs):
    loader = DataLoader(dataset, batch_size=64, shuffle=True, num_workers=4)
    optimizer = torch.optim.Adam(model.parameters())
    for _ in range(epochs):
        for x, y in loader:
            optimizer.zero_grad()
            torch.nn.functional.mse_loss(model(x), y).backward()
            optimizer.step()

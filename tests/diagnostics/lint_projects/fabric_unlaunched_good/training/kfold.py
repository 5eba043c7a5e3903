"""K-fold training with Lightning Fabric: each fold's loaders go through setup_dataloaders."""

import torch
from lightning.fabric import Fabric
from sklearn.model_selection import KFold
from torch.utils.data import DataLoader, SubsetRandomSampler


def train(dataset, make_model, folds=5, epochs=3):
    fabric = Fabric()
    for train_ids, val_ids in KFold(n_splits=folds).split(dataset):
        train_loader = DataLoader(dataset, batch_size=4, sampler=SubsetRandomSampler(train_ids))
        val_loader = DataLoader(dataset, batch_size=4, sampler=SubsetRandomSampler(val_ids))
        train_loader, val_loader = fabric.setup_dataloaders(train_loader, val_loader)
        model, optimizer = fabric.setup(*make_model())
        for _ in range(epochs):
            for x, y in train_loader:
                fabric.backward(torch.nn.functional.mse_loss(model(x), y))
                optimizer.step()
                optimizer.zero_grad()
        with torch.no_grad():
            loss = sum(torch.nn.functional.mse_loss(model(x), y) for x, y in val_loader)
        fabric.print(fabric.all_reduce(loss))

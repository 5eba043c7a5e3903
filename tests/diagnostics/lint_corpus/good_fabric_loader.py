# Lightning Fabric replaces the sampler of the loaders it sets up with a distributed one.
from lightning.fabric import Fabric
from torch.utils.data import DataLoader


def main(model, optimizer, dataset, epochs):
    fabric = Fabric(accelerator="cuda", devices=4, strategy="ddp")
    fabric.launch()
    model, optimizer = fabric.setup(model, optimizer)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    loader = fabric.setup_dataloaders(loader)
    fabric.barrier()
    for epoch in range(epochs):
        for batch in loader:
            fabric.backward(model(batch).sum())

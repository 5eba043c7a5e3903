# Lightning Lite (before 1.9): the loop sets the epoch of the sampler Lite put in.
import torch
from pytorch_lightning.lite import LightningLite


class Lite(LightningLite):
    def run(self, dataset, model, epochs):
        loader = self.setup_dataloaders(torch.utils.data.DataLoader(dataset, shuffle=True))
        model, optimizer = self.setup(model, torch.optim.SGD(model.parameters(), lr=0.1))
        for epoch in range(epochs):
            loader.sampler.set_epoch(epoch)
            for batch in loader:
                self.backward(model(batch).mean())
                optimizer.step()

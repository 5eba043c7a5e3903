# Lightning Lite (before 1.9) with a loader that does not shuffle, or whose sampler
# Lite keeps (replace_sampler=False): no epoch to set.
import torch
from pytorch_lightning.lite import LightningLite


class Lite(LightningLite):
    def run(self, dataset, model, epochs, sampler):
        ordered = self.setup_dataloaders(torch.utils.data.DataLoader(dataset, batch_size=4))
        own = torch.utils.data.DataLoader(dataset, shuffle=True)
        kept = self.setup_dataloaders(own, replace_sampler=False)
        for _epoch in range(epochs):
            for batch in ordered:
                self.backward(model(batch).mean())
            for batch in kept:
                self.backward(model(batch).mean())

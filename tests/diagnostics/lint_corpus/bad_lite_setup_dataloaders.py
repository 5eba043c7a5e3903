# Lightning Lite (before 1.9) puts a shuffling DistributedSampler into the loader
# it sets up and never calls set_epoch; neither does this loop: every epoch
# repeats each rank's order.
import torch
from pytorch_lightning.lite import LightningLite
from tqdm import tqdm


class Lite(LightningLite):
    def run(self, args, dataset, model):
        train_loader = torch.utils.data.DataLoader(dataset, batch_size=4, shuffle=True)
        train_loader = self.setup_dataloaders(train_loader, move_to_device=False)
        model, optimizer = self.setup(model, torch.optim.SGD(model.parameters(), lr=0.1))
        step = 0
        while step < args.num_steps:  # expect: FS101
            for batch in enumerate(tqdm(train_loader)):
                loss = model(batch).mean()
                self.backward(loss)
                optimizer.step()
                step += 1

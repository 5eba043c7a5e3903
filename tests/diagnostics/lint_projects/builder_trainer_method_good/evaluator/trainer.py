import torch


class EvalTrainer:
    def __init__(self, model, opt, cfg):
        self.model = model
        self.opt = opt
        self.cfg = cfg
        self.epoch = 0

    def step(self, batch):
        self.opt.zero_grad()
        loss = self.model(batch["imgs"]).mean()
        loss.backward()
        self.opt.step()
        return loss

    def train(self, loader, val_loader):
        for epoch in range(self.epoch, self.cfg.max_epoch):
            self.epoch = epoch
            loader.sampler.set_epoch(epoch)
            for batch in loader:
                self.step(batch)
            self.validate(val_loader)

    def validate(self, val_loader):
        with torch.no_grad():
            for batch in val_loader:
                self.model(batch["imgs"])

# trainer.test names no model: Lightning tests the LocalModel fit trained, which
# logs each rank's own test loss and combines nothing (the tree's SyncedModel,
# which syncs, is another script's).
import lightning as L
from models import local
from torch.utils.data import DataLoader


def main(train_set, test_set):
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=8)
    model = local.LocalModel()
    trainer = L.Trainer(devices=4)
    trainer.fit(model=model, train_dataloaders=train_loader)
    trainer.test(dataloaders=test_loader, ckpt_path="best")

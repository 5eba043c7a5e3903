# The synced model, on one device: nothing is padded.
import lightning as L
from models import synced
from torch.utils.data import DataLoader


def main(train_set, test_set):
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=8)
    model = synced.SyncedModel()
    trainer = L.Trainer(devices=1)
    trainer.fit(model=model, train_dataloaders=train_loader)
    trainer.test(dataloaders=test_loader, ckpt_path="best")

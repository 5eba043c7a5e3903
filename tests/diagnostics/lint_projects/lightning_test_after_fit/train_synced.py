# trainer.test names no model: Lightning tests the SyncedModel fit trained, whose
# test loss is synced over the ranks, so the padded test repeats count twice.
import lightning as L
from models import synced
from torch.utils.data import DataLoader


def main(train_set, test_set):
    train_loader = DataLoader(train_set, batch_size=8, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=8)  # expect: FS109
    model = synced.SyncedModel()
    trainer = L.Trainer(devices=4)
    trainer.fit(model=model, train_dataloaders=train_loader)
    trainer.test(dataloaders=test_loader, ckpt_path="best")

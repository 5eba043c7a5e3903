import lightning as L
from data import GroupedData


class BatchSamplerEpoch(L.Callback):
    def on_train_epoch_start(self, trainer, pl_module):
        trainer.train_dataloader.batch_sampler.set_epoch(trainer.current_epoch)


def main(model, train_set, val_set):
    trainer = L.Trainer(
        devices=8,
        strategy="ddp",
        use_distributed_sampler=False,
        max_epochs=50,
        callbacks=[BatchSamplerEpoch()],
    )
    trainer.fit(model, datamodule=GroupedData(train_set, val_set, 16))

import lightning as L
from data import WeightedData


def main(model, dataset, weights):
    trainer = L.Trainer(devices=8, strategy="ddp", use_distributed_sampler=False, max_epochs=50)
    trainer.fit(model, datamodule=WeightedData(dataset, weights, 16))

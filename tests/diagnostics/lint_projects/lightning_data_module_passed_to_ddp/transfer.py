"""Another script: it fits the news data module on four processes, through a helper."""

import lightning as L
from datamodules import NewsData
from models import Classifier


def fit_news(datamodule):
    trainer = L.Trainer(devices=4, strategy="ddp")
    trainer.fit(model=Classifier(), datamodule=datamodule)


if __name__ == "__main__":
    fit_news(NewsData())

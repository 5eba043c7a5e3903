# The model class is picked by the task, then fitted and tested on every GPU.
import pytorch_lightning as pl
import torch
from tsp_model import TSPModel


def main(args, sets):
    if args.task == "tsp":
        model_class = TSPModel
    model = model_class(*sets)
    trainer = pl.Trainer(devices=torch.cuda.device_count(), strategy="ddp")
    trainer.fit(model)
    trainer.test(model)

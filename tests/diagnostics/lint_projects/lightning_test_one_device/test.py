# The test runs on one device: Lightning puts in no sampler, nothing is padded.
from datamodule import ExprDatamodule
from model import LitModel
from pytorch_lightning import Trainer


def main(ckpt, sets):
    trainer = Trainer(logger=False, gpus=1)
    dm = ExprDatamodule(*sets)
    model = LitModel.load_from_checkpoint(ckpt)
    trainer.test(model, datamodule=dm)

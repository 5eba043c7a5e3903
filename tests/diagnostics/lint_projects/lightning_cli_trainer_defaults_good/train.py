# The config names no devices: the CLI's trainer_defaults give one, so nothing is padded.
from pytorch_lightning.cli import LightningCLI

if __name__ == "__main__":
    cli = LightningCLI(run=False, trainer_defaults={"accelerator": "mps", "devices": 1})
    cli.trainer.fit(model=cli.model, datamodule=cli.datamodule)

# The config names no devices: the CLI's trainer_defaults give four, so validation is
# padded on every rank and its synced loss counts the repeats.
from pytorch_lightning.cli import LightningCLI

if __name__ == "__main__":
    cli = LightningCLI(run=False, trainer_defaults={"accelerator": "gpu", "devices": 4})
    cli.trainer.fit(model=cli.model, datamodule=cli.datamodule)

# LightningCLI of Lightning 1.3 only fits (the config runs 4 GPUs with DDP): validation is
# padded, the test loader is never run here.
from datamodule import ExprDatamodule
from model import LitModel
from pytorch_lightning.utilities.cli import LightningCLI

cli = LightningCLI(LitModel, ExprDatamodule)

"""Tests a fine-tuned model again, on four processes.

Usage:
    torchrun --nproc_per_node=4 infer.py --finetune_dir runs/finetune
"""

import lightning as L
from data.molecules import MoleculeData
from model import Net

if __name__ == "__main__":
    L.Trainer().test(Net(), datamodule=MoleculeData())

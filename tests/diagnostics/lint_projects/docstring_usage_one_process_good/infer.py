"""Tests a fine-tuned model again."""

import lightning as L
from data.molecules import MoleculeData
from model import Net

if __name__ == "__main__":
    """
    CUDA_VISIBLE_DEVICES=0 python infer.py --finetune_dir runs/finetune
    """
    L.Trainer().test(Net(), datamodule=MoleculeData())

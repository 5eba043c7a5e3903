#!/bin/bash
#SBATCH --nodes=1
#SBATCH --gres=gpu:4
torchrun --standalone \
    --nproc_per_node=4 train_ddp.py

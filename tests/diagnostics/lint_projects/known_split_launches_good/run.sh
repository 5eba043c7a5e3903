#!/bin/bash
python -m torch.distributed.launch --nproc_per_node=2 train.py
torchrun --nproc-per-node 4 train.py

#!/bin/bash
seed=7327
srun --nodes=1 --gpus=2 --ntasks-per-node=2 python train.py --seed $seed

#!/bin/bash
seed=-1 # no seed gives better results
srun --nodes=1 --gpus=2 --ntasks-per-node=2 python train.py --seed $seed

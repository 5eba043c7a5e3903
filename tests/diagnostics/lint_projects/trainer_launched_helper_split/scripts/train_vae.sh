#!/bin/bash
torchrun --nnodes 1 --nproc_per_node 8 ../vae/train_vae.py --test_size 10

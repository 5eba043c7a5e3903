#!/bin/bash
# single-GPU runs of every experiment
GPU=0
for lr in 0.1 0.01; do
    CUDA_VISIBLE_DEVICES=$GPU accelerate launch ../train.py \
        --lr $lr
done

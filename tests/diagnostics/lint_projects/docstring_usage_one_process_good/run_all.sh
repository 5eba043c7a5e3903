#!/bin/bash
for GPU_ID in 0 1 2 3; do
    CUDA_VISIBLE_DEVICES=$GPU_ID torchrun --nproc_per_node=1 finetune.py &
done
wait

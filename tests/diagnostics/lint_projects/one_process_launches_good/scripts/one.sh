#!/bin/bash
GPU=$1  # the GPU index to use
CUDA_VISIBLE_DEVICES=${GPU} torchrun --nproc_per_node=1 train.py --lr 0.1

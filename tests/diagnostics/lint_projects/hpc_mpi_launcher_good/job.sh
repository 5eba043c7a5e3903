#!/bin/sh
#BSUB -nnodes 1
#BSUB -W 720
python train.py

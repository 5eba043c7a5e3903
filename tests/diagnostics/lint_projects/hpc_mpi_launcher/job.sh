#!/bin/sh
#BSUB -nnodes 20
#BSUB -W 720
export MASTER_PORT=23456
jsrun -r 4 -g 1 --bind none -c 10 python train.py

#!/bin/sh
#BSUB -q gpua100
#BSUB -gpu "num=4:mode=exclusive_process"
#BSUB -n 16
#BSUB -R "span[hosts=1]"
uv run train.py

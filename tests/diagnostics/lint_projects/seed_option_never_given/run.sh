#!/bin/bash
accelerate launch --num_processes 4 run.py --lr 1e-4

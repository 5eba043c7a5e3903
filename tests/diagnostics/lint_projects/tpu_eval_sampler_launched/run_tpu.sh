#!/bin/sh
python xla_spawn.py --num_cores 8 train.py

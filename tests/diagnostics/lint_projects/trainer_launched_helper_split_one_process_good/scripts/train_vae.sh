#!/bin/bash
python ../vae/train_vae.py --test_size 10

#!/bin/bash
python train.py trainer.max_epochs=20

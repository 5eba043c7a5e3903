"""Runs the fine-tuning on two processes: the command line is written here, not in a script."""

import os

command = "python -m torch.distributed.launch --nproc_per_node 2 run_glue.py --epochs {}"
os.system(command.format(3))

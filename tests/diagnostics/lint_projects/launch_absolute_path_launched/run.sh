#!/bin/bash
python3 -m torch.distributed.launch --nproc_per_node=2 /apdcephfs/share/user/project/run_classify.py --epochs 10

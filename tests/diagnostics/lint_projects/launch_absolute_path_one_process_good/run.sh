#!/bin/bash
python3 /apdcephfs/share/user/project/run_classify.py --epochs 10

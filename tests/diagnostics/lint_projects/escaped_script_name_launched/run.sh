#!/bin/bash
# the same test, spread over two processes
torchrun --nproc_per_node=2 FSC_test\(few-shot\).py --output_dir ./out/base --box_bound 3

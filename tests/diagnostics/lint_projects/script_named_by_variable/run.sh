#!/bin/bash
set -euo pipefail
SCRIPT=evaluate.py
torchrun --nproc_per_node=2 "${SCRIPT}"

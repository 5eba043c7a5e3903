#!/bin/bash
set -euo pipefail
SCRIPT=evaluate.py
GPUS=(0 1 2 3)
pids=()
for i in "${!GPUS[@]}"; do
  gpu=${GPUS[$i]}
  CUDA_VISIBLE_DEVICES=${gpu} \
  SHARD=${i} \
  python "${SCRIPT}" &
  pids+=($!)
done
for pid in "${pids[@]}"; do
  wait "$pid"
done
CUDA_VISIBLE_DEVICES=${GPUS[0]} \
python "${SCRIPT}"

torchrun --nproc_per_node 4 pretrain.py
python probe.py

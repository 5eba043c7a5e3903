torchrun --nproc_per_node 4 pretrain.py
torchrun --nproc_per_node 4 probe.py

python -m torch.distributed.launch --nproc_per_node 2 train.py --n_gpu 2 --num_epochs 10
torchrun --nproc_per_node 2 pretrain.py

python train.py --numepochs=2 --isdistributed=0

python -m torch.distributed.launch --nproc_per_node=6 train.py --numepochs=2 --isdistributed=0

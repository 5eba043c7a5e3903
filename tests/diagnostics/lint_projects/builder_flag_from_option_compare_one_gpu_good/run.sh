CUDA_VISIBLE_DEVICES=1 nohup python train.py \
--n_gpu 1 \
--num_epochs 10 \
>> train.out
torchrun --nproc_per_node 2 pretrain.py

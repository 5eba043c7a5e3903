accelerate launch --multi_gpu --num_processes=2 src/trainsft.py --dataset_name=data/sft

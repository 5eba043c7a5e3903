sudo docker run \
    --gpus all -it --shm-size=16G \
    -v "$PWD:/work" steg:latest \
    python train.py

# A PPO update shuffles the rows of the rollout batch this rank collected itself: every
# rank holds different data, so drawing minibatch positions per rank shards nothing wrong.
import torch.distributed as dist
from torch.utils.data import BatchSampler, SubsetRandomSampler


def update(policy, optimizer, rollouts, minibatch, epochs):
    dist.init_process_group("nccl")
    states, actions, returns = rollouts
    for _ in range(epochs):
        for index in BatchSampler(SubsetRandomSampler(range(actions.shape[0])), minibatch, True):
            loss = policy.loss(states[index], actions[index], returns[index])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
    order = SubsetRandomSampler(range(len(states)))
    return [int(i) for i in order]

from pkg.common.data_parallel import StatefulDistributedSampler


class ResumableSampler(StatefulDistributedSampler):
    def state_dict(self):
        return {"start_iter": self.start_iter}

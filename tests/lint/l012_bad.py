import mindspore.nn as nn


class Stages(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stages = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 4)])

    def construct(self, x):
        outs = self.run(x)
        return outs

    def run(self, x):
        for s in self.stages:
            x = s(x)
            yield x  # expect: MS-L012

import mindspore.nn as nn


def iter_layers(n):
    for i in range(n):
        yield nn.Dense(4, 4)


class Stages(nn.Cell):
    def __init__(self):
        super().__init__()
        self.stages = nn.CellList(list(iter_layers(2)))

    def construct(self, x):
        outs = ()
        for s in self.stages:
            x = s(x)
            outs += (x,)
        return outs

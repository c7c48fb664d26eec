import mindspore.nn as nn
import mindspore.ops as ops


class Acc(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        acc = []
        add = lambda t: t + len(acc)  # expect: MS-L013
        acc.append(x)
        scale = 1.0
        f = lambda t: t * scale  # expect: MS-L013
        scale = 2.0
        g = lambda t, cache=[]: t  # expect: MS-L013
        return add(self.dense(x)), f(x), g(x)

import numpy as np
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor


class Heads(nn.Cell):
    """Comprehensions in __init__ run in Python before compilation: fine."""

    def __init__(self, n):
        super().__init__()
        self.heads = nn.CellList([nn.Dense(8, 8) for _ in range(n)])
        self.scales = tuple(float(s) for s in range(1, n + 1))
        self.table = Tensor(np.array([i * 2 for i in range(n)], np.float32))

    def construct(self, x):
        outs = ()
        for h in self.heads:
            outs = outs + (h(x),)
        return ops.stack(outs)


def make_layers(n):
    # not reachable from construct: plain Python
    return [nn.Dense(4, 4) for _ in range(n)]

import numpy as np
import mindspore as ms
import mindspore.nn as nn
from mindspore import Parameter, Tensor


def _weights(shape):
    return Tensor(np.random.randn(*shape))  # expect: MS-L014


class Embed(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.pos = Tensor(np.arange(n))  # expect: MS-L014
        table = np.zeros((n, 4))
        self.table = Parameter(Tensor(table), name="table")  # expect: MS-L014
        self.w = Parameter(_weights((4, 4)), name="w")
        self.bias = Tensor([0.0, 1.0], ms.float64)  # expect: MS-L014
        self.mask = Tensor(np.array([1, 0, 1]))  # expect: MS-L014

    def construct(self, x):
        return x * self.table + self.w

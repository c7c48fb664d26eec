import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Parameter, Tensor
import numpy as np


class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.count = 0
        self.ema = Parameter(Tensor(np.zeros(4, np.float32)), name="ema")

    def construct(self, x):
        self.last = x  # expect: MS-L006
        self.count += 1  # expect: MS-L006
        self.ema = self.ema * 0.9 + x.mean()  # expect: MS-L006
        setattr(self, "cache", x)  # expect: MS-L006
        self._remember(x)
        return self.dense(x)

    def _remember(self, x):
        self.prev = x  # expect: MS-L006

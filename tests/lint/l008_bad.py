import mindspore.nn as nn
import mindspore.ops as ops


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.drop = nn.Dropout(p=0.1)  # expect: MS-L008
        self.noise = ops.StandardNormal()  # expect: MS-L008

    def construct(self, x):
        x = self.drop(self.dense(x))  # expect: MS-L008
        x = ops.dropout(x, p=0.2)  # expect: MS-L008
        n = ops.uniform(x.shape, ops.zeros(1), ops.ones(1))  # expect: MS-L008
        return x + n + self.noise(x.shape)  # expect: MS-L008

import mindspore.nn as nn
import mindspore.ops as ops


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.drop = nn.Dropout(p=0.0)
        self.norm = nn.LayerNorm((4,))

    def construct(self, x):
        x = self.drop(self.dense(x))
        return self.norm(ops.relu(x))

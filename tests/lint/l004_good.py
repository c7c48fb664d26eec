import mindspore.nn as nn
import mindspore.ops as ops


class Loop(nn.Cell):
    def __init__(self, depth=3, training_flag=False):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.depth = depth
        self.training_flag = training_flag
        self.cfg_mode = "fast"

    def construct(self, x, mask=None, scale=2):  # expect: MS-L015
        if mask is not None:
            x = x * mask
        if self.training_flag:
            x = x * 0.5
        if self.cfg_mode == "fast":
            x = x + 1
        if x.shape[0] * 2 > 4 and x.ndim == 2:
            x = self.dense(x)
        for _ in range(self.depth):
            x = self.dense(x)
        for i in range(x.shape[0]):
            x = x + i
        if scale > 1:
            x = x * scale
        i = 0
        while i < self.depth:
            x = self.dense(x)
            i += 1
        x = ops.select(x > 0, x, -x)
        return x

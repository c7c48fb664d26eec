import mindspore.nn as nn
import mindspore.ops as ops


class Loop(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x, steps):
        if x.sum() > 0:  # expect: MS-L004
            x = self.dense(x)
        while ops.reduce_max(x) > 1.0:  # expect: MS-L004
            x = x / 2
        for _ in range(steps):  # expect: MS-L004
            x = self.dense(x)
        vals = x.asnumpy().tolist()  # expect: MS-L005
        if vals[0] > 0:  # expect: MS-L004
            x = x * 2
        y = x if x.max() > 0 else -x  # expect: MS-L004
        return y

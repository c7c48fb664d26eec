import mindspore.nn as nn
import mindspore.ops as ops


class Debug(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.print = ops.Print()

    def construct(self, x):
        y = self.dense(x)
        print(y)  # expect: MS-L009
        print(f"out={y.sum()}")  # expect: MS-L009
        self.print("y:", y)  # expect: MS-L009
        return y

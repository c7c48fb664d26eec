import mindspore.nn as nn


class Debug(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        print("building Debug")

    def construct(self, x):
        print("shape:", x.shape)
        return self.dense(x)

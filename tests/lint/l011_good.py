import mindspore.nn as nn

SCALE = 2.0


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        global SCALE
        SCALE = 3.0
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        return self.dense(x) * SCALE

import mindspore.nn as nn


class Encoder(nn.Cell):
    def __init__(self, mask=None):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x, attention_mask, scale=1.0):
        return self.dense(x * attention_mask) * scale

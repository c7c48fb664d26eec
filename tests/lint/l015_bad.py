import mindspore.nn as nn


class Encoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x, attention_mask=None):  # expect: MS-L015
        if attention_mask is not None:
            x = x * attention_mask
        return self.dense(x)


class Decoder(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self,
                  x,
                  memory=None):  # expect: MS-L015
        return self.dense(x)

import mindspore.nn as nn


class Safe(nn.Cell):
    def __init__(self, path=None):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        try:
            import yaml  # noqa: F401
            self.has_yaml = True
        except ImportError:
            self.has_yaml = False

    def construct(self, x):
        if x.shape[-1] != 4:
            raise ValueError("expected 4 features")
        return self.dense(x)

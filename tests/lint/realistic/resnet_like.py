import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.ops.operations as P
from mindspore import Tensor

from common import BaseCell, apply_act, conv3x3, conv_weight, topk_debug


class BasicBlock(BaseCell):
    expansion = 1

    def __init__(self, cin, cout, stride=1, down_sample=False):
        super().__init__("block")
        self.conv1 = conv3x3(cin, cout, stride)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = conv3x3(cout, cout)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU()
        self.down_sample = down_sample
        if down_sample:
            self.down = nn.SequentialCell([nn.Conv2d(cin, cout, 1, stride=stride), nn.BatchNorm2d(cout)])
        self.add = P.Add()

    def construct(self, x):
        identity = x
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        if self.down_sample:
            identity = self.down(identity)
        out = self.add(out, identity)
        return apply_act(out, "relu")


class ResNetLike(BaseCell):
    def __init__(self, layers=(2, 2, 2, 2), num_classes=10, widths=(64, 128, 256, 512)):
        super().__init__("resnet")
        self.conv1 = nn.Conv2d(3, 64, 7, stride=2, pad_mode="pad", padding=3, weight_init=conv_weight((64, 3, 7, 7)))
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = ops.ReLU()
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, pad_mode="same")
        blocks = []
        cin = 64
        for i, (n, w) in enumerate(zip(layers, widths)):
            for j in range(n):
                stride = 2 if (j == 0 and i > 0) else 1
                blocks.append(BasicBlock(cin, w, stride, down_sample=(stride != 1 or cin != w)))
                cin = w
        self.blocks = nn.CellList(blocks)
        self.stage_ends = [sum(layers[: k + 1]) - 1 for k in range(len(layers))]
        self.mean = ops.ReduceMean(keep_dims=True)
        self.flatten = nn.Flatten()
        self.head = nn.Dense(cin, num_classes)
        self.dropout = nn.Dropout(p=0.2)  # expect: MS-L008
        self.reshape = P.Reshape()
        self.shape = P.Shape()
        self.class_ids = Tensor(np.arange(num_classes))  # expect: MS-L014
        self.norm_scale = Tensor(np.full((1, 3, 1, 1), 1.0 / 255, np.float32))
        self.stats = {"calls": 0}

    def construct(self, x, return_features=False):
        x = x * self.norm_scale
        x = self.cast_in(x)
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        feats = []
        for i, blk in enumerate(self.blocks):
            x = blk(x)
            if i in self.stage_ends:
                feats.append(x)
        b, c, h, w = self.shape(x)
        if h * w > 1:
            x = self.mean(x, (2, 3))
        x = self.reshape(x, (b, -1))
        x = self.flatten(x)
        if x.max() > 1e4:  # expect: MS-L004
            x = x / x.max()
        x = self.dropout(x)  # expect: MS-L008
        logits = self.head(x)
        self.stats["calls"] = self.stats["calls"] + 1
        self.last_logits = logits  # expect: MS-L006
        if return_features:
            return logits, tuple(feats)
        return logits


class ResNetWithPost(nn.Cell):
    """Inference wrapper: post-processing that does not belong in the graph."""

    def __init__(self, net, labels):
        super().__init__()
        self.net = net
        self.labels = labels
        self.softmax = nn.Softmax(axis=-1)
        self.argmax = ops.Argmax(axis=-1)

    def construct(self, x, topk=None):  # expect: MS-L015
        logits = self.net(x)
        probs = self.softmax(logits)
        idx = self.argmax(probs)
        names = [self.labels[int(i)] for i in idx.asnumpy()]  # expect: MS-L001, MS-L005
        scores = np.sort(probs.asnumpy(), axis=-1)  # expect: MS-L005
        probs = topk_debug(probs)
        try:  # expect: MS-L010
            conf = probs.max(axis=-1)
        except RuntimeError:
            conf = probs
        return idx, conf, names, scores

import math

import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.ops.operations as P
from mindspore import Parameter, Tensor
from mindspore.ops import constexpr

from common import BaseCell


@constexpr
def _causal_mask(n):
    m = np.triu(np.ones((n, n), np.float32), k=1)
    return Tensor(m * -1e9, ms.float32)


def sinusoid_table(n, d):
    pos = np.arange(n)[:, None]
    i = np.arange(d)[None, :]
    angle = pos / np.power(10000, (2 * (i // 2)) / d)
    table = np.where(i % 2 == 0, np.sin(angle), np.cos(angle))
    return Tensor(table)  # expect: MS-L014


class MultiHeadAttention(BaseCell):
    def __init__(self, d_model, heads, dropout=0.1):
        super().__init__("mha")
        assert d_model % heads == 0
        self.heads = heads
        self.d_head = d_model // heads
        self.scale = 1.0 / math.sqrt(self.d_head)
        self.qkv = nn.Dense(d_model, 3 * d_model)
        self.proj = nn.Dense(d_model, d_model)
        self.attn_drop = nn.Dropout(p=dropout)  # expect: MS-L008
        self.softmax = nn.Softmax(axis=-1)
        self.bmm = ops.BatchMatMul()
        self.bmm_t = ops.BatchMatMul(transpose_b=True)
        self.transpose = P.Transpose()
        self.reshape = P.Reshape()

    def _split(self, t, b, n):
        t = self.reshape(t, (b, n, self.heads, self.d_head))
        return self.transpose(t, (0, 2, 1, 3))

    def construct(self, x, mask):
        b, n, d = x.shape
        q, k, v = ops.split(self.qkv(x), d, axis=-1)
        q, k, v = self._split(q, b, n), self._split(k, b, n), self._split(v, b, n)
        scores = self.bmm_t(q, k) * self.scale
        scores = scores + _causal_mask(n)
        scores = ops.masked_fill(scores, mask == 0, -1e9)
        attn = self.attn_drop(self.softmax(scores))  # expect: MS-L008
        out = self.bmm(attn, v)
        out = self.transpose(out, (0, 2, 1, 3))
        out = self.reshape(out, (b, n, -1))
        return self.proj(out)


class FeedForward(nn.Cell):
    def __init__(self, d_model, hidden, act="gelu"):
        super().__init__()
        self.fc1 = nn.Dense(d_model, hidden)
        self.fc2 = nn.Dense(hidden, d_model)
        self.act = nn.GELU() if act == "gelu" else nn.ReLU()

    def construct(self, x):
        return self.fc2(self.act(self.fc1(x)))


class EncoderLayer(nn.Cell):
    def __init__(self, d_model, heads, hidden, pre_norm=True):
        super().__init__()
        self.attn = MultiHeadAttention(d_model, heads)
        self.ffn = FeedForward(d_model, hidden)
        self.ln1 = nn.LayerNorm((d_model,))
        self.ln2 = nn.LayerNorm((d_model,))
        self.pre_norm = pre_norm

    def construct(self, x, mask):
        if self.pre_norm:
            x = x + self.attn(self.ln1(x), mask)
            x = x + self.ffn(self.ln2(x))
        else:
            x = self.ln1(x + self.attn(x, mask))
            x = self.ln2(x + self.ffn(x))
        return x


class TransformerLike(nn.Cell):
    def __init__(self, vocab, d_model=64, heads=4, layers=2, max_len=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        self.pos = Parameter(sinusoid_table(max_len, d_model), name="pos", requires_grad=False)
        self.layers = nn.CellList([EncoderLayer(d_model, heads, 4 * d_model) for _ in range(layers)])
        self.norm = nn.LayerNorm((d_model,))
        self.head = nn.Dense(d_model, vocab)
        self.num_layers = layers
        self.pad_id = 0
        self.layer_scales = [1.0 / (i + 1) for i in range(layers)]

    def construct(self, tokens, mask, lengths):
        b, n = tokens.shape
        x = self.embed(tokens) * math.sqrt(self.embed.embedding_size) + self.pos[:n]
        hidden = {}
        for i in range(self.num_layers):
            x = self.layers[i](x, mask) * self.layer_scales[i]
            hidden["layer%d" % i] = x
        states = [h for h in hidden.values()]  # expect: MS-L001, MS-L003
        x = self.norm(x)
        valid = ops.masked_select(x, mask.expand_dims(-1) > 0)
        pooled = valid.view(-1, x.shape[-1])  # expect: MS-L007
        max_len = int(lengths.max())
        while max_len > n:  # expect: MS-L004
            max_len = max_len - 1
        if len(tokens) != b:  # expect: MS-L002
            x = x * 0
        for t in range(lengths.max()):  # expect: MS-L004
            x = x + 0
        logits = self.head(x)
        print("logits", logits)  # expect: MS-L009
        return logits, pooled, states


class Generator(nn.Cell):
    def __init__(self, model, max_new=8):
        super().__init__()
        self.model = model
        self.max_new = max_new
        self.argmax = ops.Argmax(axis=-1)
        self.temperature = 1.0

    def construct(self, tokens, mask, lengths):
        global DECODE_CALLS  # expect: MS-L011
        out = tokens
        for _ in range(self.max_new):
            logits, _, _ = self.model(out, mask, lengths)
            nxt = self.argmax(logits[:, -1] / self.temperature)
            noise = ops.standard_normal(nxt.shape)  # expect: MS-L008
            pick = lambda t: t + self.temperature  # look-alike: temperature is never changed here
            out = ops.concat((out, pick(nxt).expand_dims(-1).astype(out.dtype)), axis=1)
        return out

import math
import numpy as np
import mindspore
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Tensor
from mindspore.common.initializer import TruncatedNormal


class BertEmbeddings(nn.Cell):
    def __init__(self, vocab_size, hidden, max_pos=512, type_vocab=2, dropout_prob=0.1):
        super().__init__()
        self.word = nn.Embedding(vocab_size, hidden, embedding_table=TruncatedNormal(0.02))
        self.position = nn.Embedding(max_pos, hidden)
        self.token_type = nn.Embedding(type_vocab, hidden)
        self.norm = nn.LayerNorm((hidden,), epsilon=1e-12)
        self.dropout = nn.Dropout(p=dropout_prob)  # expect: MS-L008
        self.inv = Tensor(np.float64(1.0) / 3)  # expect: MS-L014
        self.pair_ids = Tensor(np.array([[1, 2], [3, 4]]), mindspore.int32)

    def construct(self, input_ids, token_type_ids=None):  # expect: MS-L015
        seq_len = input_ids.shape[1]
        if token_type_ids is None:
            token_type_ids = ops.zeros_like(input_ids)
        position_ids = ops.arange(seq_len).expand_dims(0)
        emb = self.word(input_ids) + self.position(position_ids) + self.token_type(token_type_ids)
        return self.dropout(self.norm(emb))  # expect: MS-L008


class BertLayer(nn.Cell):
    def __init__(self, hidden, heads):
        super().__init__()
        self.attn = nn.MultiheadAttention(hidden, heads, batch_first=True)
        self.ffn = nn.SequentialCell([nn.Dense(hidden, 4 * hidden), nn.GELU(), nn.Dense(4 * hidden, hidden)])
        self.ln1 = nn.LayerNorm((hidden,))
        self.ln2 = nn.LayerNorm((hidden,))

    def construct(self, h, key_padding_mask):
        a, _ = self.attn(h, h, h, key_padding_mask=key_padding_mask)
        h = self.ln1(h + a)
        return self.ln2(h + self.ffn(h))


class BertModel(nn.Cell):
    def __init__(self, vocab_size=30522, hidden=128, layers=2, heads=2, output_all=False):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab_size, hidden)
        self.layers = nn.CellList([BertLayer(hidden, heads) for _ in range(layers)])
        self.pooler = nn.Dense(hidden, hidden, activation="tanh")
        self.output_all = output_all
        self.dropout = nn.Dropout(p=0.1)  # expect: MS-L008
        self.step = 0
        self.scale = 1.0 / math.sqrt(hidden)

    def _pooled(self, h):
        try:  # expect: MS-L010
            first = h[:, 0]
        except IndexError:
            first = h
        return self.pooler(first)

    def construct(self, input_ids, attention_mask, token_type_ids):
        h = self.embeddings(input_ids, token_type_ids)
        key_padding_mask = attention_mask == 0
        all_layers = []
        for layer in self.layers:
            h = layer(h, key_padding_mask)
            all_layers.append(h)
        dropped = [self.dropout(x) for x in all_layers]  # expect: MS-L001, MS-L008
        n_tokens = attention_mask.sum().asnumpy()  # expect: MS-L005
        self.step += 1  # expect: MS-L006
        setattr(self, "hidden_cache", h)  # expect: MS-L006
        gelu = lambda t: 0.5 * t * (1.0 + ops.tanh(t * self.scale))
        pooled = gelu(self._pooled(h))
        if self.output_all:
            return tuple(dropped), pooled, n_tokens
        return h, pooled, n_tokens

"""The content model, whole, in one file: per-block encoder -> block-sequence encoder -> label heads.

* Per block: bags of embeddings (mean over tokens) of the text tokens, the tag path (with a position-from-the-
  owner embedding) and the class words (with an ancestor-level embedding), plus a projection of the numeric
  features. A bag is far cheaper than SemText's depthwise CNN on two CPU cores; docs/model.md has the ablation.
* Over the page: a small convolution for local order, then a transformer encoder (NeuScraper) or a BiLSTM
  (SemText), chosen by the config.
* Heads: a sigmoid logit per block for each of native_host.result.LABELS, the page's type over
  native_host.result.PAGE_TYPES (attention-pooled over its blocks), and the auxiliary tag-path depth
  regression of the multi-task boilerplate paper (training only).

The config is saved beside the weights (assets/model.json) so serving knows exactly what it loads.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import torch
from torch import nn

from native_host.pipeline import features as F
from native_host.result import LABELS, PAGE_TYPES


@dataclass
class ModelConfig:
    text_vocab: int = 8192
    class_vocab: int = 4096
    text_dim: int = 128
    tag_dim: int = 32
    class_dim: int = 48
    numeric_dim: int = 32
    d_model: int = 192  # 3 x 192 told a forum from a blog's comments better than 2 x 128
    layers: int = 3
    heads: int = 6
    ff: int = 384
    dropout: float = 0.1
    sequence: str = "transformer"  # or "bilstm"
    use_text: bool = True
    use_tags: bool = True
    use_classes: bool = True
    use_numeric: bool = True
    depth_task: bool = True
    numeric_off: list[str] = field(default_factory=list)  # NUMERIC columns zeroed (ablation)

    def to_dict(self) -> dict:
        return asdict(self)


def _bag(emb: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """Mean of the embeddings of the non-padding ids; zeros when a block has none."""
    mask = (ids != 0).unsqueeze(-1).to(emb.dtype)
    return (emb * mask).sum(-2) / mask.sum(-2).clamp(min=1.0)


class BlockEncoder(nn.Module):
    def __init__(self, c: ModelConfig):
        super().__init__()
        self.c = c
        self.text = nn.Embedding(c.text_vocab, c.text_dim, padding_idx=0)
        self.tag = nn.Embedding(len(F.TAG_IDS), c.tag_dim, padding_idx=0)
        self.tag_pos = nn.Parameter(torch.zeros(F.TAG_PATH, c.tag_dim))
        self.cls = nn.Embedding(c.class_vocab, c.class_dim, padding_idx=0)
        self.cls_level = nn.Embedding(F.CLASS_LEVELS, c.class_dim)
        self.numeric = nn.Linear(len(F.NUMERIC), c.numeric_dim)
        self.register_buffer(
            "numeric_on",
            torch.tensor([n not in c.numeric_off for n in F.NUMERIC_NAMES], dtype=torch.float32),
            persistent=False,
        )
        width = c.text_dim + c.tag_dim + c.class_dim + c.numeric_dim
        self.proj = nn.Sequential(nn.Linear(width, c.d_model), nn.GELU(), nn.LayerNorm(c.d_model))

    def forward(self, text_ids, tag_ids, class_ids, class_level, numeric):
        c = self.c
        parts = []
        t = _bag(self.text(text_ids), text_ids)
        parts.append(t if c.use_text else torch.zeros_like(t))
        g = _bag(self.tag(tag_ids) + self.tag_pos, tag_ids)
        parts.append(g if c.use_tags else torch.zeros_like(g))
        k = _bag(self.cls(class_ids) + self.cls_level(class_level), class_ids)
        parts.append(k if c.use_classes else torch.zeros_like(k))
        x = torch.relu(self.numeric(numeric * self.numeric_on if c.numeric_off else numeric))
        parts.append(x if c.use_numeric else torch.zeros_like(x))
        return self.proj(torch.cat(parts, -1))


class EncoderLayer(nn.Module):
    """Pre-norm transformer layer, written out so the ONNX export keeps the block count dynamic (torch's
    fused MultiheadAttention bakes the traced length into its reshapes)."""

    def __init__(self, d: int, heads: int, ff: int, dropout: float):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, ff), nn.GELU(), nn.Linear(ff, d))
        self.drop = nn.Dropout(dropout)

    def forward(self, x, pad_mask=None):
        b, n, d = x.shape
        qkv = self.qkv(self.ln1(x)).reshape(b, n, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv.unbind(0)
        att = (q @ k.transpose(-1, -2)) * (1.0 / math.sqrt(d // self.heads))
        if pad_mask is not None:
            att = att.masked_fill(pad_mask[:, None, None, :], float("-inf"))
        att = self.drop(torch.softmax(att, -1))
        h = (att @ v).transpose(1, 2).reshape(b, n, d)
        x = x + self.drop(self.out(h))
        return x + self.drop(self.ff(self.ln2(x)))


class ContentModel(nn.Module):
    """Inputs are [B, N, ...] (B pages of N blocks); outputs label logits [B, N, len(LABELS)], page-type
    logits [B, len(PAGE_TYPES)] and depth [B, N]."""

    def __init__(self, c: ModelConfig):
        super().__init__()
        self.c = c
        self.blocks = BlockEncoder(c)
        self.local = nn.Conv1d(c.d_model, c.d_model, kernel_size=3, padding=1, groups=c.d_model)
        if c.sequence == "transformer":
            self.seq = nn.ModuleList(EncoderLayer(c.d_model, c.heads, c.ff, c.dropout) for _ in range(c.layers))
        else:
            self.seq = nn.LSTM(
                c.d_model,
                c.d_model // 2,
                num_layers=c.layers,
                batch_first=True,
                bidirectional=True,
                dropout=c.dropout if c.layers > 1 else 0.0,
            )
        self.norm = nn.LayerNorm(c.d_model)
        self.labels = nn.Linear(c.d_model, len(LABELS))
        self.depth = nn.Linear(c.d_model, 1)
        self.pool = nn.Linear(c.d_model, 1)  # attention weights of the blocks for the page's type
        self.page_type = nn.Linear(c.d_model, len(PAGE_TYPES))

    def forward(self, text_ids, tag_ids, class_ids, class_level, numeric, pad_mask=None):
        h = self.blocks(text_ids, tag_ids, class_ids, class_level, numeric)
        h = h + self.local(h.transpose(1, 2)).transpose(1, 2)
        if self.c.sequence == "transformer":
            for layer in self.seq:
                h = layer(h, pad_mask)
        else:
            h = h + self.seq(h)[0]
        h = self.norm(h)
        weight = self.pool(h).squeeze(-1)
        if pad_mask is not None:
            weight = weight.masked_fill(pad_mask, float("-inf"))
        pooled = (torch.softmax(weight, -1).unsqueeze(-1) * h).sum(1)
        return self.labels(h), self.page_type(pooled), self.depth(h).squeeze(-1)

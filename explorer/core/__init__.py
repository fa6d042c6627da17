"""The shared BPE core, one sub-package per part.

`text` (UTF-8, characters, how a token's bytes are shown), `pretokenization`, `algorithms` (BPE
encoding, the merge forest, training), `sources` (the Tokenizer interface and the tokenizers behind
it), `formats` (tokenizer files), `corpora`, `analysis` and `chat`; beside them the helpers every
part shares: `errors`, `files`, `cache`, `plural`, `contrast`.

Nothing here imports Qt: the GUI, the command line and the tests all build on it.
"""

"""Tokenizer sources: the one `Tokenizer` interface every view and command talks to, the adapters
behind it (tiktoken encodings, Hugging Face `tokenizer.json` files, SentencePiece models, the
Hugging Face cache) and `load`, the one entry point that turns what a user names into a tokenizer.
"""

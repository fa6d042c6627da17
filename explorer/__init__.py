"""Tokenizer Explorer: see byte-level BPE tokenization."""

__version__ = "0.1.0"

"""Tokenizer file formats: our own JSON, Hugging Face tokenizer.json, .tiktoken, minbpe."""

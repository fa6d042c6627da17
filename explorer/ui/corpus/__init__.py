"""The Corpus pane: what the tokenizer will learn from (being built)."""

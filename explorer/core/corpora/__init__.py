"""Corpora: files, folders, JSON Lines, CSV and pasted text read lazily as a stream of texts, with
whatever is not text refused where it is met.
"""

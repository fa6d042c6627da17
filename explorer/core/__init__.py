"""The shared BPE core: pre-tokenization, training, encoding, file formats.

Nothing here imports Qt: the GUI, the command line and the tests all build on it.
"""

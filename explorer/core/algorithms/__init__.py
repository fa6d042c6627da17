"""The BPE algorithms, on bytes: encoding with a list of merges (in numpy for many chunks at once,
incrementally as a text is edited), the merge forest, training under both tie-breaking rules and
a training run as a stream of records, tiktoken's and SentencePiece's merge loops, and the
tutorial's two deliberate bugs beside the fixes.
"""

"""What a tokenizer does to a text or a corpus, measured: counts and where tokenizers cut differently,
the findings of a prompt, the vocabulary audit and the vocabulary table's filter, token occurrences,
efficiency per corpus source, corpus and script statistics, a token's merge tree laid out for
drawing, and where the two training rules part ways.
"""

"""What a text is made of and how it is shown: UTF-8 byte roles and streamed decoding, characters,
graphemes and writing systems, and the one way a token's bytes are shown to a person.
"""

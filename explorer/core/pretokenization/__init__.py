"""Pre-tokenization: the regex that cuts a text into chunks before BPE runs, the Unicode classes
its property escapes have in each reference library, and several patterns compared on one text
(the Chunks pane).
"""

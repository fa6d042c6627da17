"""The special tokens of the bundled model encodings, numbered as each model's own code numbers them.

A rank file holds only the mergeable tokens; the control tokens (`<|begin_of_text|>`, `[INST]`,
reserved ones included) are defined in each model's tokenizer code, right after the ranks or, for
Tekken, before them. These tables copy that code, cited beside each, so the ids are the model's.
"""

from __future__ import annotations

# Llama 3, 3.1, 3.2, 3.3: llama_models/llama3/tokenizer.py (llama-models 0.3.0). 128,000 ranks, then
# 256 special tokens: the named ones, then <|reserved_special_token_2|> onwards.
LLAMA3_RANKS = 128_000
_LLAMA3_NAMED = [
    "<|begin_of_text|>", "<|end_of_text|>", "<|reserved_special_token_0|>", "<|reserved_special_token_1|>",
    "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>", "<|end_header_id|>",
    "<|eom_id|>", "<|eot_id|>", "<|python_tag|>", "<|image|>",
]

# Llama 4: llama_models/llama4/tokenizer.py. 200,000 ranks, then 2,048 special tokens: the basic
# ones, the text post-training, vision and reasoning blocks, then <|reserved_special_token_N|>.
LLAMA4_RANKS = 200_000
_LLAMA4_BASIC = ["<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>"]
_LLAMA4_TEXT = [
    "<|header_start|>", "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>",
    *(f"<|text_post_train_reserved_special_token_{i}|>" for i in range(6)),
    "<|python_start|>", "<|python_end|>", "<|finetune_right_pad|>",
    *(f"<|text_post_train_reserved_special_token_{i}|>" for i in range(8, 69)),
]
_LLAMA4_VISION = [
    "<|image_start|>", "<|image_end|>", "<|vision_reserved_special_token_0|>", "<|vision_reserved_special_token_1|>",
    "<|tile_x_separator|>", "<|tile_y_separator|>",
    *(f"<|vision_reserved_special_token_{i}|>" for i in range(2, 6)),
    "<|image|>", "<|vision_reserved_special_token_6|>", "<|patch|>",
    *(f"<|vision_reserved_special_token_{i}|>" for i in range(7, 1048)),
]
_LLAMA4_REASONING = [
    *(f"<|reasoning_reserved_special_token_{i}|>" for i in range(8)),
    "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>",
]

# Qwen (1.x): tokenization_qwen.py, as dashscope/tokenizers/qwen_tokenizer.py repeats it.
QWEN_RANKS = 151_643

# Tekken: mistral_common/tokens/tokenizers/tekken.py. Special tokens come first (ids 0-999) and the
# ranks after them; a file without a `special_tokens` list (versions up to v7, such as
# tekken_240911.json) gets `Tekkenizer.DEPRECATED_SPECIAL_TOKENS`, then `<SPECIAL_N>` fillers.
TEKKEN_SPECIAL_COUNT = 1000
TEKKEN_DEFAULT_SPECIALS = [
    "<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
    "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
    "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]",
]


def numbered(names: list[str], first_id: int) -> dict[str, int]:
    """`names` with consecutive ids from `first_id`, the way every table here is laid out."""
    return {name: first_id + offset for offset, name in enumerate(names)}


def llama3_special_tokens() -> dict[str, int]:
    reserved = [f"<|reserved_special_token_{2 + i}|>" for i in range(256 - len(_LLAMA3_NAMED))]
    return numbered(_LLAMA3_NAMED + reserved, LLAMA3_RANKS)


def llama4_special_tokens() -> dict[str, int]:
    named = _LLAMA4_BASIC + _LLAMA4_TEXT + _LLAMA4_VISION + _LLAMA4_REASONING
    reserved = [f"<|reserved_special_token_{i}|>" for i in range(2048 - len(named))]
    return numbered(named + reserved, LLAMA4_RANKS)


def qwen_special_tokens() -> dict[str, int]:
    names = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", *(f"<|extra_{i}|>" for i in range(205))]
    return numbered(names, QWEN_RANKS)


def harmony_special_tokens() -> dict[str, int]:
    """o200k_harmony in tiktoken_ext/openai_public.py: o200k_base's two, then gpt-oss's block.

    As there, `<|endofprompt|>` and `<|reserved_200018|>` share id 200018 (the later name is the
    one a decoded 200018 shows)."""
    named = ["<|reserved_200000|>", "<|reserved_200001|>", "<|return|>", "<|constrain|>", "<|reserved_200004|>",
             "<|channel|>", "<|start|>", "<|end|>", "<|message|>", "<|reserved_200009|>", "<|reserved_200010|>",
             "<|reserved_200011|>", "<|call|>"]
    return ({"<|endoftext|>": 199999, "<|endofprompt|>": 200018, "<|startoftext|>": 199998}
            | numbered(named, 200000) | {f"<|reserved_{i}|>": i for i in range(200013, 201088)})


def tekken_special_tokens(declared: dict[str, int] | None = None,
                          count: int = TEKKEN_SPECIAL_COUNT) -> dict[str, int]:
    """The special block of a Tekken file: its declared tokens (name -> rank) or the defaults,
    then `<SPECIAL_N>` for every id up to `count`, as `Tekkenizer.__init__` fills it."""
    tokens = dict(declared) if declared is not None else numbered(TEKKEN_DEFAULT_SPECIALS, 0)
    return tokens | {f"<SPECIAL_{i}>": i for i in range(len(tokens), count)}
